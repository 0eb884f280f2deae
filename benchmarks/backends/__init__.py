"""One adapter per system under test, all driven the same way by the worker."""
