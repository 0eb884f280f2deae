"""A password in ``api_base`` stays out of httpx's own log lines.

httpx logs every request at INFO on its ``httpx`` logger as ``HTTP Request: POST <url>``,
formatting the URL with ``str()``, which keeps the password (only ``repr(URL)`` masks it):
an application logging at INFO wrote the password of ``http://user:password@host/v1``
into its logs. The credentials are now sent as HTTP Basic auth, as httpx did for a URL's
userinfo, from a URL without them.
"""

from __future__ import annotations

import asyncio
import base64
import logging

import pytest

from oracleagentmemory.core.llms.llm import Llm
from tests.support.llm_server import chat

PASSWORD = "s3cretpw-77q"


def test_httpx_info_lines_do_not_show_the_password(llm_server, caplog):
    caplog.set_level(logging.INFO)
    base = llm_server.base_url.replace("http://", f"http://al%40ice:{PASSWORD}@")
    llm = Llm("m", api_base=base, api_key=None, max_retries=0)
    llm_server.enqueue(chat("one"), chat("two"))
    assert llm.generate("hi").text == "one"
    assert asyncio.run(llm.generate_async("hi")).text == "two"
    assert any("HTTP Request" in r.getMessage() for r in caplog.records)  # httpx logged
    assert [r.getMessage() for r in caplog.records if PASSWORD in r.getMessage()] == []
    sent = base64.b64encode(f"al@ice:{PASSWORD}".encode()).decode()
    assert [r.headers.get("Authorization") for r in llm_server.requests] == [f"Basic {sent}"] * 2


@pytest.mark.parametrize("userinfo, expected", [("token@", "token:"), (":only-pw@", ":only-pw")])
def test_a_user_or_password_alone_is_still_sent(llm_server, caplog, userinfo, expected):
    caplog.set_level(logging.INFO)
    llm = Llm("m", api_base=llm_server.base_url.replace("http://", f"http://{userinfo}"),
              api_key=None, max_retries=0)
    llm_server.enqueue(chat("ok"))
    assert llm.generate("hi").text == "ok"
    sent = base64.b64encode(expected.encode()).decode()
    assert llm_server.requests[0].headers.get("Authorization") == f"Basic {sent}"
    assert [r.getMessage() for r in caplog.records if userinfo in r.getMessage()] == []
