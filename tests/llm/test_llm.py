"""Llm against the scripted local server: requests, prompts, images, structured output,
both OpenAI request shapes, streaming, concurrency and the provider table."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from oracleagentmemory.apis.llms import ILlm, LlmResponse
from oracleagentmemory.apis.message import ImageContent, ImageMimeType, Message, TextContent
from oracleagentmemory.core import ImageInputLimitConfig
from oracleagentmemory.core.llms import Llm, LlmApiType
from oracleagentmemory.core.llms.errors import LlmHttpError, LlmResponseError
from oracleagentmemory.core.llms.providers import resolve_endpoint
from tests.support.images import PNG
from tests.support.llm_server import Scripted, chat, error, responses_answer, sse

SCHEMA = {"title": "Person record", "type": "object",
          "properties": {"name": {"type": "string"}}, "required": ["name"],
          "additionalProperties": False}


@pytest.fixture
def server_llm(llm_server):
    """A factory of Llms that talk to the scripted server (no retries: nothing to wait)."""
    made: list[Llm] = []

    def factory(model: str = "test-model", **options) -> Llm:
        llm = Llm(model, api_base=llm_server.base_url, max_retries=0, **options)
        made.append(llm)
        return llm

    yield factory
    for llm in made:
        llm.close()


def image_prompt(role: str = "user") -> list[Message]:
    return [Message(role, [TextContent(text="What is this?"),
                           ImageContent(bytes=PNG, mime_type=ImageMimeType.PNG)])]


# -- chat completions -------------------------------------------------------------------

def test_a_string_prompt_is_one_user_message_and_the_answer_is_an_llm_response(
        llm_server, server_llm):
    llm_server.enqueue(chat("Hi there"))
    llm = server_llm(temperature=0.2, max_tokens=50, reasoning_effort="low", seed=7,
                     api_key="sk-1")
    response = llm.generate("Hello", top_p=0.5)
    assert isinstance(llm, ILlm)
    assert response == LlmResponse("Hi there")
    request = llm_server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == "Bearer sk-1"
    assert request.body == {"model": "test-model",
                            "messages": [{"role": "user", "content": "Hello"}],
                            "temperature": 0.2, "max_tokens": 50, "reasoning_effort": "low",
                            "seed": 7, "top_p": 0.5}


def test_per_call_kwargs_override_the_defaults(llm_server, server_llm):
    llm_server.enqueue(chat("ok"))
    server_llm(temperature=0.2, seed=1).generate("x", temperature=0.9, seed=2)
    assert (llm_server.requests[0].body["temperature"],
            llm_server.requests[0].body["seed"]) == (0.9, 2)


def test_messages_and_mappings_are_sent_in_order(llm_server, server_llm):
    llm_server.enqueue(chat("a"), chat("b"))
    llm = server_llm()
    llm.generate([Message("system", "Be brief."), {"role": "user", "content": "Hi"},
                  Message("assistant", [TextContent(text="Hello"), TextContent(text="!")])])
    llm.generate({"role": "user", "content": [{"type": "text", "text": "single mapping"}]})
    assert llm_server.requests[0].body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello\n!"},
    ]
    assert llm_server.requests[1].body["messages"] == [
        {"role": "user", "content": "single mapping"}]


def test_an_image_travels_as_a_data_url_part(llm_server, server_llm):
    llm_server.enqueue(chat("a red square"))
    assert server_llm().generate(image_prompt()).text == "a red square"
    text_part, image_part = llm_server.requests[0].body["messages"][0]["content"]
    assert text_part == {"type": "text", "text": "What is this?"}
    url = image_part["image_url"]["url"]
    assert image_part["type"] == "image_url"
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == PNG


def test_an_openai_style_image_mapping_is_accepted(llm_server, server_llm):
    llm_server.enqueue(chat("ok"))
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    server_llm().generate([{"role": "user", "content": [
        {"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": url}}]}])
    assert llm_server.requests[0].body["messages"][0]["content"][1]["image_url"]["url"] == url


@pytest.mark.parametrize(("prompt", "error", "match"), [
    (42, TypeError, "prompt must be"),
    ([], ValueError, "at least one message"),
    ([{"content": "no role"}], ValueError, r"prompt\[0\] needs a non-empty 'role'"),
    ([{"role": "user", "content": [{"type": "image_url",
                                    "image_url": {"url": "https://example.com/a.png"}}]}],
     ValueError, "data URLs"),
    ([{"role": "user", "content": [{"type": "audio"}]}], ValueError, "type 'audio'"),
])
def test_prompts_that_cannot_be_sent_are_refused_before_any_request(
        llm_server, server_llm, prompt, error, match):
    with pytest.raises(error, match=match):
        server_llm().generate(prompt)
    assert llm_server.requests == []


def test_images_obey_vision_support_and_the_image_limits(llm_server, server_llm):
    with pytest.raises(ValueError, match="supports_vision=False"):
        server_llm(supports_vision=False).generate(image_prompt())
    assert server_llm(supports_vision=False).supports_vision is False
    assert server_llm().supports_vision is True
    limits = ImageInputLimitConfig(max_raw_image_bytes=len(PNG) - 1)
    with pytest.raises(ValueError, match="max_raw_image_bytes"):
        server_llm(image_input_limit_config=limits).generate(image_prompt())
    with pytest.raises(ValueError, match="only be sent in user messages"):
        server_llm().generate(image_prompt("system"))
    assert llm_server.requests == []


@pytest.mark.parametrize("body", [{"choices": []}, {"unexpected": True},
                                  {"choices": [{"message": {"content": None},
                                                "finish_reason": "content_filter"}]},
                                  {"choices": [{"message": {"content": None,
                                                            "refusal": "I can't."}}]}])
def test_an_answer_without_text_is_a_response_error(llm_server, server_llm, body):
    llm_server.enqueue(Scripted(body=body))
    with pytest.raises(LlmResponseError):
        server_llm().generate("x")


def test_content_parts_in_the_answer_are_joined(llm_server, server_llm):
    llm_server.enqueue(Scripted(body={"choices": [{"message": {"content": [
        {"type": "text", "text": "Hello "}, {"type": "text", "text": "world"}]}}]}))
    assert server_llm().generate("x").text == "Hello world"


# -- structured output ----------------------------------------------------------------

def test_a_schema_is_requested_as_strict_structured_output(llm_server, server_llm):
    llm_server.enqueue(chat('{"name": "Ana"}'))
    answer = server_llm().generate("Who?", response_json_schema=SCHEMA)
    assert json.loads(answer.text) == {"name": "Ana"}
    body = llm_server.requests[0].body
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "Person_record", "schema": SCHEMA, "strict": True}}
    assert len(body["messages"]) == 1  # no reminder: the server enforces the schema


def test_an_open_schema_is_sent_without_strict(llm_server, server_llm):
    llm_server.enqueue(chat("{}"))
    open_schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    server_llm().generate("x", response_json_schema=open_schema)
    sent = llm_server.requests[0].body["response_format"]["json_schema"]
    assert (sent["name"], sent["strict"]) == ("response", False)


def test_refused_formats_fall_back_to_json_mode_then_text_and_are_remembered(
        llm_server, server_llm, caplog):
    llm_server.enqueue(error(400, "json_schema is not supported"),
                       error(422, "unknown field response_format"),
                       chat('{"name": "Ana"}'), chat('{"name": "Bo"}'))
    llm = server_llm()
    with caplog.at_level(logging.INFO):
        assert llm.generate("Who?", response_json_schema=SCHEMA).text == '{"name": "Ana"}'
    assert llm.generate("Who?", response_json_schema=SCHEMA).text == '{"name": "Bo"}'
    sent = [r.body.get("response_format", {}).get("type") for r in llm_server.requests]
    assert sent == ["json_schema", "json_object", None, None]
    reminders = [r.body["messages"][-1] for r in llm_server.requests[1:]]
    assert all(m["role"] == "system" and json.dumps(SCHEMA) in m["content"]
               for m in reminders)
    assert "refused SCHEMA output" in caplog.text


def test_the_reminder_can_be_disabled(llm_server, server_llm):
    llm_server.enqueue(error(400, "no"), chat("{}"))
    server_llm(enable_structured_output_reminder=False).generate(
        "x", response_json_schema=SCHEMA)
    assert llm_server.requests[1].body["messages"] == [{"role": "user", "content": "x"}]


def test_a_refusal_without_a_schema_is_raised(llm_server, server_llm):
    llm_server.enqueue(error(400, "context length exceeded"))
    with pytest.raises(LlmHttpError, match="context length exceeded"):
        server_llm().generate("x")
    assert len(llm_server.requests) == 1


def test_structured_output_can_be_switched_off(llm_server, server_llm):
    llm_server.enqueue(chat("{}"))
    server_llm(structured_output=False).generate("x", response_json_schema=SCHEMA)
    assert "response_format" not in llm_server.requests[0].body


def test_generate_async_falls_back_the_same_way(llm_server, server_llm):
    llm_server.enqueue(error(415, "no"), chat("[]"))
    answer = asyncio.run(server_llm().generate_async("x", response_json_schema=SCHEMA))
    assert answer == LlmResponse("[]")
    assert llm_server.requests[1].body["response_format"] == {"type": "json_object"}


# -- the Responses API ----------------------------------------------------------------

def test_the_responses_api_request_and_answer(llm_server, server_llm):
    llm_server.enqueue(responses_answer('{"name": "Ana"}'))
    llm = server_llm(api_type=LlmApiType.RESPONSES, temperature=0, max_tokens=99,
                     reasoning_effort="high")
    answer = llm.generate([Message("system", "Be brief."), *image_prompt()],
                          response_json_schema=SCHEMA)
    assert answer.text == '{"name": "Ana"}'
    request = llm_server.requests[0]
    assert request.path == "/v1/responses"
    body = request.body
    assert body["input"][0] == {"role": "system", "content": "Be brief."}
    text_part, image_part = body["input"][1]["content"]
    assert text_part == {"type": "input_text", "text": "What is this?"}
    assert image_part["type"] == "input_image"
    assert base64.b64decode(image_part["image_url"].split(",", 1)[1]) == PNG
    assert body["text"] == {"format": {"type": "json_schema", "name": "Person_record",
                                       "schema": SCHEMA, "strict": True}}
    assert (body["temperature"], body["max_output_tokens"], body["reasoning"],
            body["store"]) == (0, 99, {"effort": "high"}, False)


def test_the_responses_api_falls_back_to_json_mode(llm_server, server_llm):
    llm_server.enqueue(error(400, "no schema here"), responses_answer("{}"))
    server_llm(api_type="responses").generate("x", response_json_schema=SCHEMA)
    assert llm_server.requests[1].body["text"] == {"format": {"type": "json_object"}}


@pytest.mark.parametrize("body", [
    {"status": "failed", "error": {"code": "server_error", "message": "boom"}, "output": []},
    {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
     "output": [{"type": "reasoning", "summary": []}]},
    {"status": "completed", "output": [{"type": "message", "content": [
        {"type": "refusal", "refusal": "I can't help with that."}]}]},
])
def test_responses_without_text_are_response_errors(llm_server, server_llm, body):
    llm_server.enqueue(Scripted(body=body))
    with pytest.raises(LlmResponseError):
        server_llm(api_type=LlmApiType.RESPONSES).generate("x")


# -- streaming ------------------------------------------------------------------------

def test_a_streamed_chat_completion_is_joined(llm_server, server_llm):
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}}]}
    llm_server.enqueue(sse(
        {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
        {**chunk, "choices": [{"index": 0, "delta": {"content": "Hel"}}]},
        {**chunk, "choices": [{"index": 0, "delta": {"content": "lo"}}]},
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ))
    assert server_llm(stream=True).generate("x").text == "Hello"
    assert llm_server.requests[0].body["stream"] is True


def test_a_streamed_response_is_read_from_its_completed_event(llm_server, server_llm):
    final = responses_answer("Hello").body
    llm_server.enqueue(sse(
        {"type": "response.created", "response": {**final, "status": "in_progress",
                                                  "output": []}},
        {"type": "response.output_text.delta", "delta": "Hel"},
        {"type": "response.output_text.delta", "delta": "lo"},
        {"type": "response.completed", "response": final}, done=False))
    llm = server_llm(api_type=LlmApiType.RESPONSES, stream=True)
    assert asyncio.run(llm.generate_async("x")).text == "Hello"


def test_a_streamed_failure_is_a_response_error(llm_server, server_llm):
    llm_server.enqueue(sse({"type": "response.failed", "response": {"status": "failed"}}))
    with pytest.raises(LlmResponseError, match="stream reported an error"):
        server_llm(api_type=LlmApiType.RESPONSES, stream=True).generate("x")


# -- client behaviour -------------------------------------------------------------------

def test_max_concurrent_requests_bounds_requests_in_flight(llm_server, server_llm):
    in_flight = 0
    peak = 0
    lock = threading.Lock()
    pairs = threading.Barrier(2, timeout=10)  # two requests must be in flight together

    def respond(request):
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        pairs.wait()
        with lock:
            in_flight -= 1
        return chat("ok")

    llm_server.respond_with(respond)
    llm = server_llm(max_concurrent_requests=2)
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda i: llm.generate(f"q{i}").text, range(4)))
    assert answers == ["ok"] * 4
    assert peak == 2


def test_async_calls_take_and_give_back_concurrency_slots(llm_server, server_llm):
    in_flight = 0
    peak = 0
    lock = threading.Lock()

    def respond(request):
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        with lock:
            in_flight -= 1
        return chat(request.body["messages"][0]["content"])

    llm_server.respond_with(respond)
    llm = server_llm(max_concurrent_requests=1)

    async def ask_three() -> list[str]:
        answers = await asyncio.gather(*(llm.generate_async(f"q{i}") for i in range(3)))
        return [answer.text for answer in answers]

    assert asyncio.run(ask_three()) == ["q0", "q1", "q2"]
    assert peak == 1
    assert llm._slots.acquire(blocking=False)  # every slot was given back


def test_timeout_and_retries_are_client_options_not_request_fields(llm_server):
    llm = Llm("m", api_base=llm_server.base_url, timeout=12.5, max_retries=1)
    assert (llm.http.timeout, llm.http.retry.max_retries) == (12.5, 1)
    llm_server.enqueue(chat("ok"))
    llm.generate("x")
    assert "timeout" not in llm_server.requests[0].body
    llm.close()


def test_an_explicit_proxy_is_used(llm_server):
    llm = Llm("m", api_base="http://llm.invalid/v1", max_retries=0,
              proxy=llm_server.base_url.removesuffix("/v1"))
    llm_server.enqueue(chat("via proxy"))
    assert llm.generate("x").text == "via proxy"
    assert llm_server.requests[0].path == "http://llm.invalid/v1/chat/completions"
    llm.close()


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"model": ""}, ValueError, "model"),
    ({"model": "m", "api_type": "completions"}, ValueError, "api_type"),
    ({"model": "m", "temperature": "hot"}, TypeError, "temperature"),
    ({"model": "m", "max_tokens": True}, TypeError, "max_tokens"),
    ({"model": "m", "stream": "yes"}, TypeError, "stream"),
    ({"model": "m", "max_concurrent_requests": 0}, ValueError, "max_concurrent_requests"),
    ({"model": "m", "image_input_limit_config": {"max_raw_image_bytes": 1}}, TypeError,
     "image_input_limit_config"),
    ({"model": "m", "timeout": 0}, ValueError, "timeout"),
    ({"model": "m", "max_retries": -1}, ValueError, "max_retries"),
    ({"model": "m", "ca_file": "/no/such/file.pem"}, ValueError, "ca_file"),
    ({"model": "m", "api_base": "localhost:8000/v1"}, ValueError, "base_url"),
])
def test_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        Llm(**kwargs)


# -- providers --------------------------------------------------------------------------

def test_provider_prefixes_choose_the_server_and_are_not_sent(llm_server, server_llm):
    assert Llm("ollama/llama3.1").http.base_url == "http://localhost:11434/v1"
    assert Llm("vllm/Qwen/Qwen2.5-7B").http.base_url == "http://localhost:8000/v1"
    assert Llm("lm_studio/qwen").http.base_url == "http://localhost:1234/v1"
    assert Llm("gpt-4o-mini").http.base_url == "https://api.openai.com/v1"
    llm_server.enqueue(chat("a"), chat("b"))
    server_llm("hosted_vllm/Qwen/Qwen2.5-7B").generate("x")
    server_llm("meta-llama/Llama-3.1-8B").generate("x")  # not a provider: the server's name
    assert [r.body["model"] for r in llm_server.requests] == ["Qwen/Qwen2.5-7B",
                                                              "meta-llama/Llama-3.1-8B"]
    assert server_llm("ollama/llama3.1").model == "ollama/llama3.1"


def test_an_unknown_provider_without_api_base_names_the_extra():
    with pytest.raises(ValueError, match=r"'anthropic'.*agentmemory-plsql\[litellm\]"):
        Llm("anthropic/claude-sonnet")


def test_the_environment_key_is_only_sent_to_its_own_provider(monkeypatch, llm_server,
                                                              server_llm):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert resolve_endpoint("openai/gpt-4o-mini").api_key == "sk-env"
    assert resolve_endpoint("gpt-4o-mini").max_tokens_field == "max_completion_tokens"
    assert resolve_endpoint("openai/gpt-4o-mini", api_key=None).api_key is None
    llm_server.enqueue(chat("a"))
    server_llm("openai/gpt-4o-mini", max_tokens=5).generate("x")
    request = llm_server.requests[0]
    assert "Authorization" not in request.headers  # another host: the key stays home
    assert request.body["max_tokens"] == 5  # OpenAI's renamed field is for OpenAI only


def test_a_model_server_failure_is_one_of_our_errors_and_still_a_runtime_error(
        llm_server, server_llm):
    """``except AgentMemoryError`` catches every error of the library, an LLM's included."""
    from oracleagentmemory.errors import AgentMemoryError

    llm_server.enqueue(error(400, "bad request"))
    with pytest.raises(AgentMemoryError) as raised:
        server_llm().generate("hi")
    assert isinstance(raised.value, LlmHttpError) and isinstance(raised.value, RuntimeError)
