"""Interface of text embedders: texts in, one fixed-size float vector per text out."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from oracleagentmemory._async_twins import document_twins

DIMENSION_PROBE_TEXT = "dimension probe"
DEFAULT_MAX_INPUT_TOKENS = 512
"""What the base class assumes a model reads: the BERT-family limit, the smallest common one."""


@document_twins
class IEmbedder(ABC):
    """Turns texts into vectors. Implement both methods to plug your own model in.

    ``is_query=True`` marks search queries, for models that embed queries and documents
    differently (instruction prefixes, asymmetric models); others may ignore it.
    """

    def __init__(self) -> None:  # noqa: B027 - the reference's constructor takes nothing
        """Nothing to set up; subclasses need not call it."""

    @abstractmethod
    def embed(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        """Embed ``texts``, one vector each.

        Args:
            texts: The texts, as a list of str (a bare string is refused).
            is_query: True for search queries, False (the default) for stored documents;
                models that embed both alike ignore it.

        Returns:
            A float array of shape ``(len(texts), embedding_dimension)``, rows in input
            order (``(0, embedding_dimension)`` for no text).

        Raises:
            TypeError: ``texts`` is a single string or holds something other than str.
            LlmError: A remote model failed (embedders over HTTP raise its subclasses).
        """

    @abstractmethod
    async def embed_async(self, texts: list[str], *, is_query: bool = False) -> np.ndarray:
        ...

    @property
    def embedding_dimension(self) -> int:
        """Length of every vector.

        The base class learns it from one probe embedding on first use and remembers it;
        override it when the model's dimension is known without a call.

        Raises:
            ValueError: The probe embedding is not of shape ``(1, dimension)``.
        """
        known = getattr(self, "_probed_dimension", None)
        if known is None:
            vectors = np.asarray(self.embed([DIMENSION_PROBE_TEXT]))
            if vectors.ndim != 2 or vectors.shape[0] != 1 or vectors.shape[1] < 1:
                raise ValueError(f"{type(self).__name__}.embed returned shape {vectors.shape} "
                                 "for one text; expected (1, dimension)")
            known = int(vectors.shape[1])
            self._probed_dimension = known
        return known

    @property
    def max_input_tokens(self) -> int:
        """Longest input the model reads, in tokens (longer texts are cut by the model).

        The base class answers 512, the limit of BERT-family models and the smallest in
        common use; override it with your model's limit.
        """
        return DEFAULT_MAX_INPUT_TOKENS
