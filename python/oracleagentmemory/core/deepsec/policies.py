"""Deep data security policies: which rows an end user may see and change.

A policy is registered on a store (``add_deep_data_security_policies``) and granted to
principals (``grant_agent_memory_policies``). Inside an end-user security context, every
operation sees only the rows the policies granted to that end user allow; an end user
granted nothing sees nothing. Outside any context the application sees everything (it is
the store's trusted service).
"""

from __future__ import annotations

__all__ = [
    "DeepDataSecurityPolicy",
    "GlobalMemoriesDeepDataSecurityPolicy",
    "UserOwnRowsDeepDataSecurityPolicy",
]


class DeepDataSecurityPolicy:
    """Base of the policies; two policies are equal when they are of the same kind."""

    name = ""
    """The policy's stored name."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self).__name__)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class UserOwnRowsDeepDataSecurityPolicy(DeepDataSecurityPolicy):
    """An end user sees and changes the rows whose user is them (their threads, messages,
    memories, images, profile), and nothing of other users."""

    name = "user_own_rows"


class GlobalMemoriesDeepDataSecurityPolicy(DeepDataSecurityPolicy):
    """An end user also reads memories that belong to no user (shared knowledge); they
    cannot change them."""

    name = "global_memories"


POLICIES: dict[str, type[DeepDataSecurityPolicy]] = {
    cls.name: cls for cls in (UserOwnRowsDeepDataSecurityPolicy,
                              GlobalMemoriesDeepDataSecurityPolicy)
}
