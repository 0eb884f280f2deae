"""End-user security: who an operation acts for, and which rows that end user may see."""

from oracleagentmemory.core.deepsec.admin import (
    LocalEndUserPrincipal,
    OciGroupPrincipal,
    Principal,
    add_deep_data_security_policies,
    get_end_user_username,
    grant_agent_memory_policies,
    list_agent_memory_granted_policies,
    list_deep_data_security_policies,
    remove_deep_data_security_policies,
    revoke_agent_memory_policies,
)
from oracleagentmemory.core.deepsec.context import OracleMemoryEndUserSecurityContext
from oracleagentmemory.core.deepsec.policies import (
    DeepDataSecurityPolicy,
    GlobalMemoriesDeepDataSecurityPolicy,
    UserOwnRowsDeepDataSecurityPolicy,
)

__all__ = [
    "DeepDataSecurityPolicy",
    "GlobalMemoriesDeepDataSecurityPolicy",
    "LocalEndUserPrincipal",
    "OciGroupPrincipal",
    "OracleMemoryEndUserSecurityContext",
    "Principal",
    "UserOwnRowsDeepDataSecurityPolicy",
    "add_deep_data_security_policies",
    "get_end_user_username",
    "grant_agent_memory_policies",
    "list_agent_memory_granted_policies",
    "list_deep_data_security_policies",
    "remove_deep_data_security_policies",
    "revoke_agent_memory_policies",
]
