#!/usr/bin/env python3
"""A metis adapter for Anthropic's Messages API, in Python.

It speaks metis's stdio adapter protocol, version metis.adapter/v2
(protocol/v2/*.schema.json in the metis repository): one JSON object per
line, metis's requests on stdin, the adapter's answers on stdout. It talks
HTTP to whatever base URL init gives it: Anthropic itself, or the replay
server `conform certify` runs. Standard library only; Python 3.11.

    conform certify --provider anthropic --exec "python3 examples/python-adapter/adapter.py"

How it maps the canonical format to the Messages API follows metis's own Go
adapter (adapters/anthropic), so that both produce the same wire requests
and the same canonical events; the comments name the places where the
protocol asks something of every adapter.
"""

import datetime
import email.utils
import http.client
import json
import queue
import random
import socket
import sys
import threading
import time
import urllib.parse

NAME, VERSION = "python-anthropic-example", "0.1.0"
PROTOCOL = "metis.adapter/v2"
API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
MIN_THINKING_BUDGET = 1024
MAX_RETRY_AFTER_MS = 60_000
IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"]
LOSSY = "lossy projection: block dropped"

# Claude 4 families the adapter knows, most specific prefix first, with
# their output limits.
FAMILIES = [
    ("claude-opus-4-0", 32000), ("claude-opus-4-1", 32000), ("claude-opus-4-2025", 32000),
    ("claude-opus-4-6", 128000), ("claude-opus-4", 64000), ("claude-sonnet-4", 64000),
    ("claude-haiku-4-5", 64000),
]


class Out:
    """Writes protocol lines to stdout, one whole line at a time."""

    def __init__(self):
        self.lock = threading.Lock()

    def send(self, obj):
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self.lock:
            sys.stdout.buffer.write(line.encode("utf-8"))
            sys.stdout.buffer.flush()

    def log(self, level, message, call_id=None, **attrs):
        # Logs go to stdout as log lines: anything on stderr is a problem
        # `conform certify` reports.
        m = {"type": "log", "level": level, "message": message, "attrs": attrs}
        if call_id:
            m["id"] = call_id
        self.send(m)


class AdapterError(Exception):
    """A canonical error (class, code, status, message, retry hint)."""

    RETRYABLE = {"rate_limit", "server_error", "network"}

    def __init__(self, cls, code="", message="", status=0):
        super().__init__(message)
        self.cls, self.code, self.status, self.message = cls, code, status, message or cls
        self.retryable = cls in self.RETRYABLE
        self.retry_after_ms = 0
        self.provider_request_id = ""
        self.attempts = 0

    def wire(self):
        e = {"class": self.cls, "message": self.message}
        if self.code:
            e["code"] = self.code
        if self.status:
            e["status"] = self.status
        if self.retryable:
            e["retryable"] = True
        if self.provider_request_id:
            e["provider_request_id"] = self.provider_request_id
        if self.retry_after_ms:
            e["retry_after_ms"] = self.retry_after_ms
        if self.attempts:
            e["attempts"] = self.attempts
        return e


class Cancelled(Exception):
    """metis cancelled the call."""


def class_of_status(status):
    if status in (401, 403):
        return "auth"
    if status == 408:
        return "network"
    if status == 413:
        return "context_overflow"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server_error"
    if status >= 400:
        return "invalid_request"
    return "other"


def error_for(status, err_type, message):
    """Classifies an Anthropic error type (status 0: a mid-stream event)."""
    cls, code = (class_of_status(status) if status else "other"), ""
    if err_type == "invalid_request_error":
        m = message.lower()
        overflow = "prompt is too long" in m or "exceed context limit" in m or "context window" in m
        cls = "context_overflow" if overflow else "invalid_request"
    elif err_type in ("authentication_error", "permission_error"):
        cls = "auth"
    elif err_type == "billing_error":
        cls, code = "auth", "insufficient_quota"
    elif err_type == "not_found_error":
        cls = "invalid_request"
        if "model" in message.lower():
            code = "model_not_found"
    elif err_type == "request_too_large":
        cls = "context_overflow"
    elif err_type == "rate_limit_error":
        cls = "rate_limit"
    elif err_type == "api_error":
        cls = "server_error"
    elif err_type == "timeout_error":
        cls, code = "server_error", "timeout"
    elif err_type == "overloaded_error":
        cls, code = "rate_limit", "overloaded"
    elif status == 529:
        cls, code = "rate_limit", "overloaded"
    if status == 408:  # 000 §6.2: a timeout before the response, whatever the body's type
        cls, code = "network", ""
    return AdapterError(cls, code, message or err_type, status)


def classify(status, headers, body):
    """Maps a non-2xx answer to an AdapterError."""
    try:
        we = json.loads(body)
        err_type, message = we["error"]["type"], we["error"].get("message", "")
    except (ValueError, KeyError, TypeError):
        text = body.decode("utf-8", "replace")
        if len(text) > 512:
            text = text[:512] + "…"
        e = AdapterError(class_of_status(status), "", text or http.client.responses.get(status, ""), status)
        if status == 529:
            e.cls, e.code, e.retryable = "rate_limit", "overloaded", True
        if not e.message:
            e.message = "HTTP %d with an empty body" % status
        return e
    e = error_for(status, err_type, message)
    e.provider_request_id = we.get("request_id", "") or ""
    return e


# -- a 2xx that is not a response (000 §6.2) --------------------------------
# A success status whose body is not a response is an error: the error the
# body states, else server_error/invalid_response quoting the body's start.

BODY_EXCERPT = 256


def document_type(headers):
    """Names the document a Content-Type announces, or ""."""
    mt = (headers.get("content-type") or "").split(";")[0].strip().lower()
    if mt in ("text/html", "application/xhtml+xml"):
        return "an HTML page"
    if mt == "application/json" or mt.endswith("+json"):
        return "a JSON document"
    if mt in ("text/xml", "application/xml") or mt.endswith("+xml"):
        return "an XML document"
    return ""


def not_a_stream_type(headers):
    """The media type a streamed 2xx body declares when it is neither an
    event stream nor a document (text/plain from a proxy, an image), or ""
    for a missing or malformed type, an event stream's and a document's."""
    mt = (headers.get("content-type") or "").split(";")[0].strip().lower()
    if "/" not in mt:
        return ""
    if (mt in ("text/event-stream", "application/octet-stream") or mt.endswith(".eventstream")
            or "ndjson" in mt or "jsonl" in mt or "json-seq" in mt):
        return ""
    return mt


def looks_like_sse(head):
    """Whether a body starts like a server-sent event stream: its first
    line is a comment or a data, event, id or retry field, or is cut short
    where it could still become one (a stream served without a type gets
    text/plain sniffed for it)."""
    b = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    line, nl, _ = b.partition(b"\n")
    line = line.removesuffix(b"\r")
    if not line or line[:1] == b":":
        return True
    name = line.partition(b":")[0]
    for field in (b"data", b"event", b"id", b"retry"):
        if name == field or (not nl and len(line) < len(field) and field.startswith(line)):
            return True
    return False


def not_a_body(headers, body):
    """Why a non-streamed 2xx body cannot be a response, or ""."""
    doc = document_type(headers)
    if doc in ("an HTML page", "an XML document"):
        return doc
    b = body.removeprefix(b"\xef\xbb\xbf").strip()
    if not b:
        return "an empty body"
    if b == b"null":
        return "JSON null"
    if b[:1] == b"<":
        return "an HTML or XML document"
    if b[:1] not in (b"{", b"["):
        return "not JSON"
    return ""


def states_error(body):
    """Whether body is an error report rather than a response."""
    try:
        top = json.loads(body)
    except ValueError:
        return False
    if isinstance(top, list):
        top = top[0] if top else None
    if not isinstance(top, dict):
        return False
    typ, obj = top.get("type"), top.get("object")
    if typ == "error" or obj == "error":
        return True
    if typ is not None or obj is not None:
        return False  # a response of its own kind
    e = top.get("error")
    return isinstance(e, dict) or (isinstance(e, str) and e != "") or bool(top.get("__type"))


def describe_body(headers, body):
    ct = headers.get("content-type") or "none"
    trimmed = body.strip()
    if not trimmed:
        return "content type %s, %d bytes of white space" % (ct, len(body))
    excerpt = trimmed[:BODY_EXCERPT].decode("utf-8", "ignore")
    more = " (%d bytes in all)" % len(body) if len(trimmed) > BODY_EXCERPT else ""
    return "content type %s, body %s%s" % (ct, json.dumps(excerpt, ensure_ascii=False), more)


def not_a_response(status, headers, body, reason):
    """The error of a 2xx body that is not a response."""
    if states_error(body):
        e = classify(0, headers, body)
        if e.cls == "other":
            e.cls, e.retryable = "server_error", True
        if not e.provider_request_id:
            e.provider_request_id = headers.get("request-id") or headers.get("x-request-id") or ""
    else:
        e = AdapterError("server_error", "invalid_response",
                         "HTTP %d body is not a response: %s; %s" % (status, reason, describe_body(headers, body)))
        e.retryable = False
    e.status = status
    return e


class Prefixed:
    """A body whose first bytes were read ahead: readline serves them first."""

    def __init__(self, head, resp):
        self.head, self.resp = head, resp

    def readline(self):
        if not self.head:
            return self.resp.readline()
        i = self.head.find(b"\n")
        if i >= 0:
            line, self.head = self.head[:i + 1], self.head[i + 1:]
            return line
        line, self.head = self.head, b""
        return line + self.resp.readline()


def parse_now(v):
    """metis's clock from a line's now (RFC 3339), or None."""
    if not v:
        return None
    try:
        return datetime.datetime.fromisoformat(v).timestamp()
    except ValueError:
        return None


def retry_after_ms(headers, now=None):
    """The provider's retry hint in milliseconds (retry-after-ms, Retry-After), capped at 60 s.

    An HTTP date is read against now, metis's clock (protocol v2: the
    latest now metis sent for the call), not this process's wall clock,
    so that a certification's fake clock gives the same wait as in process."""
    ms = 0.0
    v = (headers.get("retry-after-ms") or "").strip()
    if v:
        try:
            ms = max(float(v), 0.0)
        except ValueError:
            pass
    v = (headers.get("retry-after") or "").strip()
    if not ms and v:
        try:
            ms = max(float(v), 0.0) * 1000
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(v)
                ms = max(when.timestamp() - (time.time() if now is None else now), 0.0) * 1000
            except (TypeError, ValueError):
                pass
    return int(min(ms, MAX_RETRY_AFTER_MS))


def compact(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Adapter:
    """One adapter instance: the init config and what it declares."""

    def __init__(self, config, out):
        self.cfg, self.out = config, out
        self.name = config["name"]
        self.models = config.get("models") or {}
        options = dict(config.get("options") or {})
        self.beta = options.get("beta")

    def wire_name(self, model):
        m = self.models.get(model) or {}
        return m.get("wire_name") or model.split(":", 1)[-1]

    def capabilities(self, model):
        wire = self.wire_name(model)
        caps = {
            "supports_images": False, "supports_thinking": False, "supports_tools": True,
            "supports_system_prompt": True, "supports_structured_output": False,
            "supports_streaming": True, "supports_streaming_tool_calls": True,
            "supports_parallel_tool_calls": False, "supports_prompt_caching": False,
            "supports_system_messages_in_list": False,
            "max_context_tokens": 200000, "max_output_tokens": 4096,
        }
        for prefix, max_output in FAMILIES:
            if wire.startswith(prefix):
                caps.update({
                    "supports_images": True, "supports_thinking": True,
                    "supports_parallel_tool_calls": True, "max_output_tokens": max_output,
                    "accepted_image_media_types": list(IMAGE_TYPES),
                })
                break
        # The registry may override the declaration field by field.
        caps.update((self.models.get(model) or {}).get("capabilities") or {})
        return caps

    def estimate(self, req):
        n = len(req.get("system_prompt") or "")
        for m in req.get("messages") or []:
            n += len(json.dumps(m.get("content") or []))
        for t in req.get("tools") or []:
            n += len(json.dumps(t))
        return n // 4


def validate_history(messages):
    """The history rules every adapter checks before the wire (004 §3)."""
    if not messages:
        return "the request has no messages"
    seen_other, uses, answered = False, {}, set()
    for i, m in enumerate(messages):
        role = m.get("role")
        if role == "system":
            if seen_other:
                return "messages[%d]: a system message after the first non-system one" % i
            continue
        if not seen_other and role != "user":
            return "messages[%d]: the first non-system message must be user, not %s" % (i, role)
        seen_other = True
        for j, b in enumerate(m.get("content") or []):
            if b.get("type") == "tool_use":
                if b.get("id") in uses:
                    return "messages[%d].content[%d]: tool_use id %s is repeated" % (i, j, b.get("id"))
                uses[b.get("id")] = i
            elif b.get("type") == "tool_result":
                tid = b.get("tool_use_id")
                if uses.get(tid, i) >= i:
                    return ("messages[%d].content[%d]: tool_result references unknown tool_use id %s; "
                            "it must answer a tool_use in an earlier message" % (i, j, tid))
                if tid in answered:
                    return "messages[%d].content[%d]: tool_use %s is already answered" % (i, j, tid)
                answered.add(tid)
    if messages[-1].get("role") not in ("user", "tool"):
        return "the last message must be user or tool, not %s" % messages[-1].get("role")
    return None


class Request:
    """Translates one canonical request to a Messages API body."""

    def __init__(self, adapter, call_id, req, stream, tool_ids=None):
        self.a, self.call_id, self.req, self.stream = adapter, call_id, req, stream
        self.tool_ids = tool_ids or {}
        self.caps = adapter.capabilities(req["model"])

    def wire_id(self, tool_id):
        # Protocol v2: requests carry canonical tool ids, and tool_ids the
        # provider's id for each that has one; an id not listed goes on the
        # wire as it is. The ids the adapter reports are the provider's
        # (toolu_...): metis maps them.
        return self.tool_ids.get(tool_id, tool_id)

    def drop(self, m, block_type, reason):
        self.a.out.log("warn", LOSSY, self.call_id, session_id=m.get("session_id") or self.req.get("session_id", ""),
                       message_id=m.get("id", ""), block_type=block_type, adapter=self.a.name, reason=reason)

    def body(self):
        req = self.req
        w = {"model": self.a.wire_name(req["model"]), "max_tokens": req.get("max_output_tokens") or DEFAULT_MAX_TOKENS}
        system = self.system()
        if system:
            w["system"] = system
        w["messages"] = self.messages()
        tools = [{"name": t["name"], "description": t.get("description", ""),
                  "input_schema": t.get("input_schema") or {"type": "object", "properties": {}}}
                 for t in req.get("tools") or []]
        if tools:
            w["tools"] = tools
            tc = req.get("tool_choice")
            if tc:
                mode = tc.get("mode") or "auto"
                w["tool_choice"] = {"type": mode, "name": tc["name"]} if mode == "tool" else {"type": mode}
        for key in ("stop_sequences", "temperature", "top_p"):
            if req.get(key) is not None and req.get(key) != []:
                w[key] = req[key]
        if req.get("thinking") and self.caps["supports_thinking"]:
            w["thinking"] = {"type": "enabled", "budget_tokens": self.thinking_budget(w)}
        w["stream"] = self.stream
        return w

    def thinking_budget(self, w):
        t = self.req["thinking"]
        budget = t.get("budget_tokens") or {"medium": 4096, "high": 16384}.get(t.get("effort"), MIN_THINKING_BUDGET)
        budget = max(budget, MIN_THINKING_BUDGET)
        if budget < w["max_tokens"]:
            return budget
        if not self.req.get("max_output_tokens"):
            w["max_tokens"] = budget + DEFAULT_MAX_TOKENS
            return budget
        if w["max_tokens"] - 1 < MIN_THINKING_BUDGET:
            raise AdapterError("invalid_request", "", "max_output_tokens %d leaves no room for the minimum thinking budget of %d tokens"
                               % (w["max_tokens"], MIN_THINKING_BUDGET))
        return w["max_tokens"] - 1

    def system(self):
        parts = [self.req["system_prompt"]] if self.req.get("system_prompt") else []
        for m in self.req["messages"]:
            if m["role"] != "system":
                continue
            texts = []
            for b in m.get("content") or []:
                if b["type"] == "text":
                    texts.append(b["text"])
                else:
                    self.drop(m, b["type"], "only text can be hoisted into the system prompt")
            if "".join(texts):
                parts.append("".join(texts))
        return "\n\n".join(parts)

    def messages(self):
        answered = {b["tool_use_id"] for m in self.req["messages"] for b in m.get("content") or [] if b["type"] == "tool_result"}
        out = []
        for m in self.req["messages"]:
            role = {"user": "user", "tool": "user", "assistant": "assistant"}.get(m["role"])
            if role is None:
                continue
            content = self.content(m, role, answered)
            if not content:
                continue
            if out and out[-1]["role"] == role:
                out[-1]["content"].extend(content)
            else:
                out.append({"role": role, "content": content})
        for m in out:
            if m["role"] == "user":  # the API wants tool results first
                m["content"] = [b for b in m["content"] if b["type"] == "tool_result"] + \
                               [b for b in m["content"] if b["type"] != "tool_result"]
        return out

    def content(self, m, role, answered):
        own = (m.get("metadata") or {}).get("provider") == self.a.name
        out = []
        for b in m.get("content") or []:
            t = b["type"]
            if t == "text":
                if b["text"]:
                    out.append({"type": "text", "text": b["text"]})
            elif t == "image":
                if role != "user":
                    self.drop(m, t, "images are accepted only in user content")
                elif (img := self.image(m, b)) is not None:
                    out.append(img)
            elif t == "tool_use":
                if role != "assistant":
                    self.drop(m, t, "tool_use is accepted only in assistant content")
                elif b["id"] not in answered:
                    self.drop(m, t, "tool_use has no tool_result")
                else:
                    out.append({"type": "tool_use", "id": self.wire_id(b["id"]), "name": b["name"], "input": b.get("input") or {}})
            elif t == "tool_result":
                if role != "user":
                    self.drop(m, t, "tool_result is accepted only in user content")
                    continue
                c = {"type": "tool_result", "tool_use_id": self.wire_id(b["tool_use_id"]), "is_error": bool(b.get("is_error"))}
                rc = self.result_content(m, b.get("content") or [])
                if len(rc) == 1 and rc[0]["type"] == "text":
                    c["content"] = rc[0]["text"]
                elif rc:
                    c["content"] = rc
                out.append(c)
            elif t == "thinking":
                if role != "assistant":
                    self.drop(m, t, "thinking is accepted only in assistant content")
                elif not own:
                    self.drop(m, t, "thinking from provider %s has no Anthropic signature" % quote_or((m.get("metadata") or {}).get("provider"), "unknown"))
                elif not b.get("signature"):
                    self.drop(m, t, "thinking without a signature is rejected by the API")
                else:
                    out.append({"type": "thinking", "thinking": b.get("text", ""), "signature": b["signature"]})
            elif t == "redacted_thinking":
                if role != "assistant":
                    self.drop(m, t, "redacted_thinking is accepted only in assistant content")
                elif not own:
                    self.drop(m, t, "redacted_thinking from provider %s is opaque to Anthropic" % quote_or((m.get("metadata") or {}).get("provider"), "unknown"))
                else:
                    out.append({"type": "redacted_thinking", "data": b["data"]})
            else:
                self.drop(m, t, "block type has no Anthropic representation")
        return out

    def result_content(self, m, blocks):
        out = []
        for b in blocks:
            if b["type"] == "text":
                if b["text"]:
                    out.append({"type": "text", "text": b["text"]})
            elif b["type"] == "image":
                if (img := self.image(m, b)) is not None:
                    out.append(img)
            else:
                self.drop(m, b["type"], "tool_result content may hold only text and images")
        return out

    def image(self, m, b):
        if not self.caps["supports_images"]:
            self.drop(m, "image", "model does not accept images")
            return None
        src = b.get("source") or {}
        kind = src.get("kind")
        if kind == "base64":
            if b.get("media_type") not in (self.caps.get("accepted_image_media_types") or [b.get("media_type")]):
                self.drop(m, "image", "model does not accept media type %s" % quote_or(b.get("media_type"), "(none)"))
                return None
            return {"type": "image", "source": {"type": "base64", "media_type": b["media_type"], "data": src["data"]}}
        if kind == "url":
            return {"type": "image", "source": {"type": "url", "url": src["data"]}}
        self.drop(m, "image", "file_ref images cannot be sent to Anthropic" if kind == "file_ref"
                  else "unknown image source kind %s" % quote_or(kind, "(none)"))
        return None


def quote_or(s, empty):
    return '"%s"' % s if s else empty


class Assembler:
    """Builds the canonical response and emits the canonical events, with
    the invariants of seed 000 §5.2: message.start first, block indexes in
    order, one tool.use_start and one tool.use_end per tool, message.complete
    last with the final content."""

    def __init__(self, call, model, provider):
        self.call = call
        self.resp = {"request_id": call.req["request_id"], "model": model, "provider": provider, "content": [],
                     "stop_reason": "end_turn", "usage": usage({})}
        self.blocks = []  # canonical blocks: dicts with kind, open, key, ...
        self.by_key = {}
        self.started = self.finished = False
        self.began = time.monotonic()

    def emit(self, ev):
        ev["message_id"] = self.call.req["request_id"]
        self.call.emit(ev)

    def start(self):
        if not self.started:
            self.started = True
            self.emit({"type": "message.start", "model": self.resp["model"]})

    def block(self, key, kind):
        i = self.by_key.get(key)
        if i is not None and self.blocks[i]["open"] and self.blocks[i]["kind"] == kind:
            return self.blocks[i], i
        self.close_all()
        p = {"kind": kind, "open": True, "text": "", "args": "", "final": None, "signature": ""}
        self.blocks.append(p)
        self.by_key[key] = len(self.blocks) - 1
        return p, len(self.blocks) - 1

    def text_delta(self, key, text):
        self.start()
        p, i = self.block(key, "text")
        p["text"] += text
        if text:
            self.emit({"type": "text.delta", "content_block_index": i, "text": text})

    def thinking_delta(self, key, text):
        self.start()
        p, i = self.block(key, "thinking")
        p["text"] += text
        if text:
            self.emit({"type": "thinking.delta", "content_block_index": i, "text": text})

    def thinking_signature(self, key, sig):
        self.start()
        p, _ = self.block(key, "thinking")
        p["signature"] = sig

    def redacted_thinking(self, key, data):
        self.start()
        p, _ = self.block(key, "redacted_thinking")
        p["data"] = data
        self.end_block(key)

    def tool_start(self, key, tool_id, name):
        # The provider's id is reported as is: metis maps it to a canonical one.
        self.start()
        self.close_all()
        p = {"kind": "tool_use", "open": True, "id": tool_id, "name": name, "args": "", "final": None}
        self.blocks.append(p)
        i = len(self.blocks) - 1
        self.by_key[key] = i
        self.emit({"type": "tool.use_start", "content_block_index": i, "tool_use_id": tool_id, "tool_name": name})

    def tool_input_delta(self, key, fragment):
        i = self.by_key.get(key)
        if i is None or not self.blocks[i]["open"] or self.blocks[i]["kind"] != "tool_use":
            raise AdapterError("server_error", "invalid_response", "tool input delta for block %d, which is not an open tool_use" % key)
        p = self.blocks[i]
        p["args"] += fragment
        if fragment:
            self.emit({"type": "tool.use_input_delta", "content_block_index": i, "tool_use_id": p["id"], "partial_json": fragment})

    def tool_input_final(self, key, obj):
        i = self.by_key.get(key)
        if i is not None and self.blocks[i]["kind"] == "tool_use":
            self.blocks[i]["final"] = obj

    def end_block(self, key):
        i = self.by_key.get(key)
        if i is not None and self.blocks[i]["open"]:
            self.close(i)

    def close(self, i):
        p = self.blocks[i]
        p["open"] = False
        if p["kind"] == "tool_use":
            p["final"] = final_input(p["final"], p["args"])
            self.emit({"type": "tool.use_end", "content_block_index": i, "tool_use_id": p["id"], "final_input": p["final"]})
        elif p["kind"] == "thinking" and p["signature"]:
            self.emit({"type": "thinking.delta", "content_block_index": i, "signature": p["signature"]})

    def close_all(self):
        for i, p in enumerate(self.blocks):
            if p["open"]:
                self.close(i)

    def served_model(self, model):
        """Records the model that served the call, as the provider names it."""
        if model:
            self.resp["served_model"] = model

    def set_usage(self, u):
        self.resp["usage"] = usage(u)

    def usage_update(self, u):
        self.resp["usage"] = usage(u)
        self.start()
        self.emit({"type": "usage.update", "usage": dict(self.resp["usage"])})

    def content(self):
        out = []
        for p in self.blocks:
            if p["kind"] == "text":
                out.append({"type": "text", "text": p["text"]})
            elif p["kind"] == "thinking":
                b = {"type": "thinking", "text": p["text"]}
                if p["signature"]:
                    b["signature"] = p["signature"]
                out.append(b)
            elif p["kind"] == "redacted_thinking":
                out.append({"type": "redacted_thinking", "data": p["data"]})
            elif p["kind"] == "tool_use":
                out.append({"type": "tool_use", "id": p["id"], "name": p["name"],
                            "input": p["final"] if p["final"] is not None else final_input(None, p["args"])})
        return out

    def finish(self, stop, provider_stop="", provider_raw=None):
        if self.finished:
            return self.resp
        self.start()
        self.close_all()
        self.finished = True
        self.resp.update(stop_reason=stop, content=self.content(), latency_ms=int((time.monotonic() - self.began) * 1000))
        if provider_stop:
            self.resp["provider_stop_reason"] = provider_stop
        if provider_raw:
            self.resp["provider_raw"] = provider_raw
        self.emit({"type": "message.complete", "response": self.resp})
        return self.resp


def usage(u):
    return {"input_tokens": u.get("input_tokens", 0), "output_tokens": u.get("output_tokens", 0),
            "cached_input_tokens": u.get("cached_input_tokens", 0),
            "cache_creation_input_tokens": u.get("cache_creation_input_tokens", 0)}


def final_input(final, args):
    """The provider's final input, else the accumulated fragments if they form an object, else {}."""
    if isinstance(final, dict):
        return final
    try:
        obj = json.loads(args) if args.strip() else None
    except ValueError:
        obj = None
    return obj if isinstance(obj, dict) else {}


def map_stop(s):
    return {"max_tokens": "max_tokens", "model_context_window_exceeded": "max_tokens", "stop_sequence": "stop_sequence",
            "tool_use": "tool_use", "refusal": "content_filter"}.get(s or "", "end_turn")


def merge_usage(u, w):
    """Overwrites the canonical usage u with the counts present in wire usage w."""
    for src, dst in (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens"),
                     ("cache_read_input_tokens", "cached_input_tokens"),
                     ("cache_creation_input_tokens", "cache_creation_input_tokens")):
        if (w or {}).get(src) is not None:
            u[dst] = w[src]


class Decoder:
    """Turns one call's Messages API answer into Assembler calls; the
    stream and the body share it so both give the same response."""

    SKIP, TEXT, THINKING, TOOL, SERVER = "skip", "text", "thinking", "tool", "server"

    def __init__(self, asm):
        self.a, self.kinds, self.usage = asm, {}, {}
        self.id = self.model = self.stop_sequence = ""
        self.opened = 0          # canonical blocks opened so far
        self.citations = {}      # canonical index -> citations of a text block
        self.text_index = {}     # provider key of an open text block -> canonical index
        self.server = []         # server-side tool blocks, verbatim, with where they stood
        self.server_key = {}     # provider key of an open server block -> index in server
        self.server_arg = {}     # streamed input of an open server_tool_use

    def block(self, key, b):
        t = b.get("type")
        if t == "text":
            self.kinds[key] = self.TEXT
            self.a.text_delta(key, b.get("text", ""))
            self.text_index[key] = self.a.by_key.get(key)
            self.opened += 1
            self.add_citations(key, b.get("citations"))
        elif t == "thinking":
            self.kinds[key] = self.THINKING
            self.opened += 1
            self.a.thinking_delta(key, b.get("thinking", ""))
            if b.get("signature"):
                self.a.thinking_signature(key, b["signature"])
        elif t == "redacted_thinking":
            self.kinds[key] = self.SKIP
            self.opened += 1
            self.a.redacted_thinking(key, b.get("data", ""))
        elif t == "tool_use":
            if not b.get("id") or not b.get("name"):
                raise AdapterError("server_error", "invalid_response", "content block %d: tool_use without id or name" % key)
            self.kinds[key] = self.TOOL
            self.opened += 1
            self.a.tool_start(key, b["id"], b["name"])
        else:
            # A server-side tool block has no canonical form: kept verbatim
            # in provider_raw, placed before the canonical block that follows.
            if not t:
                raise AdapterError("server_error", "invalid_response", "content block %d has no type" % key)
            self.kinds[key] = self.SERVER
            self.server_key[key] = len(self.server)
            self.server.append({"before": self.opened, "block": b})

    def add_citations(self, key, cits):
        """Records citations of the text block under key: an array, or one citation."""
        if cits is None:
            return
        if isinstance(cits, dict):
            cits = [cits]
        if not isinstance(cits, list):
            raise AdapterError("server_error", "invalid_response", "content block %d: citations are neither an array nor a citation" % key)
        i = self.text_index.get(key)
        if i is None:
            raise AdapterError("server_error", "invalid_response", "citations for block %d, which is not a text block" % key)
        if cits:
            self.citations.setdefault(i, []).extend(cits)

    def end_server(self, key):
        i = self.server_key.pop(key)
        if key not in self.server_arg:
            return
        args = self.server_arg.pop(key)
        try:
            obj = json.loads(args) if args.strip() else {}
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            raise AdapterError("server_error", "invalid_response", "server tool block %d: streamed input is not a JSON object" % key)
        self.server[i]["block"]["input"] = obj

    def end_block(self, key):
        kind = self.kinds.pop(key, None)
        if kind == self.SERVER:
            self.end_server(key)
            return
        if kind in (None, self.SKIP):
            return
        if kind == self.TOOL:
            i = self.a.by_key.get(key)
            args = self.a.blocks[i]["args"] if i is not None else ""
            try:
                obj = json.loads(args) if args.strip() else None
            except ValueError:
                obj = None
            if isinstance(obj, dict):
                self.a.tool_input_final(key, obj)
        self.a.end_block(key)

    def delta(self, n, key, d):
        kind = self.kinds.get(key)
        if kind is None:
            raise AdapterError("server_error", "invalid_response", "event %d (content_block_delta): block %d is not open" % (n, key))
        if kind == self.SKIP:
            return
        t = d.get("type")
        if kind == self.SERVER:
            if t == "input_json_delta":
                self.server_arg[key] = self.server_arg.get(key, "") + d.get("partial_json", "")
            return
        if t == "citations_delta":
            if kind != self.TEXT:
                raise AdapterError("server_error", "invalid_response", "event %d (content_block_delta): %s for block %d of another type" % (n, t, key))
            self.add_citations(key, d.get("citation"))
            return
        expected = {"text_delta": self.TEXT, "input_json_delta": self.TOOL,
                    "thinking_delta": self.THINKING, "signature_delta": self.THINKING}.get(t)
        if expected is None:
            return  # later delta types carry nothing canonical
        if expected != kind:
            raise AdapterError("server_error", "invalid_response", "event %d (content_block_delta): %s for block %d of another type" % (n, t, key))
        if t == "text_delta":
            self.a.text_delta(key, d.get("text", ""))
        elif t == "input_json_delta":
            self.a.tool_input_delta(key, d.get("partial_json", ""))
        elif t == "thinking_delta":
            self.a.thinking_delta(key, d.get("thinking", ""))
        else:
            self.a.thinking_signature(key, d.get("signature", ""))

    def provider_raw(self):
        """The message's round-trip data: the provider's message id, the
        stop sequence that ended it, text blocks' citations by canonical
        index and the server-side tool blocks (the model that served it is
        the response's served_model)."""
        raw = {}
        for k, v in (("id", self.id), ("stop_sequence", self.stop_sequence)):
            if v:
                raw[k] = v
        if self.citations:
            raw["citations"] = {str(i): c for i, c in sorted(self.citations.items())}
        if self.server:
            raw["server_blocks"] = self.server
        return raw or None

    def finish(self, provider_stop):
        self.a.served_model(self.model)
        return self.a.finish(map_stop(provider_stop), provider_stop or "", self.provider_raw())

    def body(self, data):
        try:
            r = json.loads(data)
        except ValueError as e:
            raise AdapterError("server_error", "invalid_response", "decoding response body: %s" % e)
        if isinstance(r, dict) and r.get("type") == "error":
            raise error_event(data)
        if not isinstance(r, dict) or (r.get("type") != "message" and (r.get("type") or r.get("role") != "assistant")):
            got = r.get("type") if isinstance(r, dict) else None
            raise AdapterError("server_error", "invalid_response", "response body is not a message: want \"type\": \"message\", got %s"
                               % (json.dumps(got) if got else "none"))
        self.id, self.model, self.stop_sequence = r.get("id", ""), r.get("model", ""), r.get("stop_sequence") or ""
        for i, b in enumerate(r.get("content") or []):
            self.block(i, b)
            if self.kinds.get(i) == self.TOOL and isinstance(b.get("input"), dict):
                self.a.tool_input_final(i, b["input"])
            self.end_block(i)
        merge_usage(self.usage, r.get("usage"))
        self.a.set_usage(self.usage)
        return self.finish(r.get("stop_reason"))

    def stream(self, events):
        """Decodes server-sent events; returns True after message_stop,
        False when the stream ended early (a truncated stream)."""
        stop = ""
        for n, (name, data) in enumerate(events, 1):
            try:
                ev = json.loads(data)
            except ValueError as e:
                raise AdapterError("server_error", "invalid_response", "event %d (%s): decoding data: %s" % (n, name or "unnamed", e))
            t = ev.get("type") or name
            if t == "message_start":
                m = ev.get("message") or {}
                self.id, self.model = m.get("id", ""), m.get("model", "")
                self.a.served_model(self.model)  # known now, should the stream break off
                merge_usage(self.usage, m.get("usage"))
                self.a.set_usage(self.usage)
                self.a.start()
            elif t == "content_block_start":
                if ev.get("index", 0) in self.kinds:
                    raise AdapterError("server_error", "invalid_response", "event %d (content_block_start): block %d is already open" % (n, ev.get("index", 0)))
                self.block(ev.get("index", 0), ev.get("content_block") or {})
            elif t == "content_block_delta":
                self.delta(n, ev.get("index", 0), ev.get("delta") or {})
            elif t == "content_block_stop":
                self.end_block(ev.get("index", 0))
            elif t == "message_delta":
                d = ev.get("delta") or {}
                stop = d.get("stop_reason") or stop
                if d.get("stop_sequence"):
                    self.stop_sequence = d["stop_sequence"]
                merge_usage(self.usage, ev.get("usage"))
                self.a.usage_update(self.usage)
            elif t == "message_stop":
                self.finish(stop)
                return True
            elif t == "error":
                raise error_event(data)
            # ping and event types added later are ignored
        return False


def error_event(data):
    """Classifies an error that arrived with a 2xx status."""
    try:
        we = json.loads(data)
        e = error_for(0, we["error"]["type"], we["error"].get("message", ""))
        e.provider_request_id = we.get("request_id", "") or ""
        return e
    except (ValueError, KeyError, TypeError) as x:
        return AdapterError("server_error", "invalid_response", "decoding error event: %s" % x)


def sse_events(resp):
    """Yields (event name, data) of a text/event-stream body, reading a
    line at a time, so that no more is read than the consumer asks for."""
    name, data = "", []
    while True:
        line = resp.readline()
        if not line:
            return
        line = line.rstrip(b"\n").rstrip(b"\r").decode("utf-8", "replace")
        if line == "":
            if data:
                yield name, "\n".join(data)
            name, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)


class Call:
    """One complete or stream call, run on its own thread."""

    def __init__(self, adapter, call_id, msg, stream, done):
        self.a, self.id, self.req, self.stream, self.done = adapter, call_id, msg["request"], stream, done
        self.tool_ids = msg.get("tool_ids") or {}
        self.now = parse_now(msg.get("now"))  # metis's clock (v2), updated by slept
        self.answers = queue.Queue()
        self.lock = threading.Lock()
        self.awaiting = self.cancelled = False
        self.sock = None

    # -- what metis says --------------------------------------------------

    def deliver(self, kind, now=None):
        """next, slept or cancel from metis."""
        with self.lock:
            if now is not None:
                self.now = now
            if kind == "cancel":
                self.cancelled = True
                self.abort_http()
            waiting, self.awaiting = self.awaiting, False
        if waiting:
            self.answers.put(kind)

    def abort_http(self):
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def ask(self, msg):
        """Sends msg and waits for metis's answer: after an event, next or
        cancel; after a sleep, slept or cancel."""
        with self.lock:
            self.awaiting = True
        self.a.out.send(msg)
        answer = self.answers.get()
        if answer == "cancel":
            self.cancelled = True
        return answer

    def emit(self, ev):
        # The protocol is in lockstep: after each event, wait for metis.
        if self.stream:
            self.ask({"type": "event", "id": self.id, "event": ev})

    # -- the call ---------------------------------------------------------

    def run(self):
        try:
            self.serve()
        except Exception as e:  # an adapter bug: report it as the call's error, not a crash
            self.a.out.send({"type": "error", "id": self.id, "error": {"class": "other", "message": "python adapter: %r" % e}})
        finally:
            self.done(self.id)

    def fail(self, e):
        self.a.out.send({"type": "error", "id": self.id, "error": e.wire()})

    def serve(self):
        problem = validate_history(self.req.get("messages") or [])
        if problem:
            return self.fail(AdapterError("invalid_request", "invalid_history", problem))
        try:
            body = json.dumps(Request(self.a, self.id, self.req, self.stream, self.tool_ids).body(), ensure_ascii=False).encode("utf-8")
        except AdapterError as e:
            return self.fail(e)
        try:
            conn, resp, data = self.send(body)
        except Cancelled:
            return self.fail(AdapterError("cancelled", "", "request cancelled"))
        except AdapterError as e:
            return self.fail(e)
        try:
            if self.stream:
                self.read_stream(resp)
            else:
                self.read_body(resp, data)
        finally:
            conn.close()

    def read_body(self, resp, data):
        """Decodes a whole 2xx body (read within its attempt, see send)."""
        reason = not_a_body(resp.headers, data)
        if reason:
            return self.fail(not_a_response(resp.status, resp.headers, data, reason))
        asm = Assembler(self, self.req["model"], self.a.name)
        try:
            r = Decoder(asm).body(data)
        except AdapterError as e:
            if states_error(data) or (e.cls, e.code) == ("server_error", "invalid_response"):
                return self.fail(not_a_response(resp.status, resp.headers, data, e.message))
            e.status = resp.status
            return self.fail(e)
        raw = None
        try:
            raw = json.loads(data)
        except ValueError:
            pass
        msg = {"type": "response", "id": self.id, "response": r}
        if raw is not None:
            msg["raw_body"] = raw
        self.a.out.send(msg)

    def read_stream(self, resp):
        # A document instead of an event stream (an HTML page, an error
        # object, null) fails before the first event, with what it says.
        head = b""
        try:
            while not head.lstrip(b"\xef\xbb\xbf \t\r\n"):
                chunk = resp.read1(512)
                if not chunk:
                    break
                head += chunk
        except (OSError, http.client.HTTPException):
            pass  # the stream's own reading meets it again
        first = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        doc = document_type(resp.headers)
        if not doc and first not in (b"{", b"[", b"<") and not_a_stream_type(resp.headers) and not looks_like_sse(head):
            doc = "a %s body" % not_a_stream_type(resp.headers)
        if doc or first in (b"{", b"[", b"<"):
            try:
                head += resp.read(1 << 20)
            except (OSError, http.client.HTTPException):
                pass
            return self.fail(not_a_response(resp.status, resp.headers, head, (doc or "a document") + ", not an event stream"))
        body = Prefixed(head, resp)
        asm = Assembler(self, self.req["model"], self.a.name)
        dec = Decoder(asm)

        def events():
            for ev in sse_events(body):
                if self.cancelled:
                    return
                yield ev
                if self.cancelled:
                    return

        err = None
        try:
            finished = dec.stream(events())
        except AdapterError as e:
            finished, err = False, e
        except (OSError, http.client.HTTPException) as e:
            finished = False
            if not self.cancelled:
                incomplete = isinstance(e, (http.client.IncompleteRead, http.client.RemoteDisconnected))
                err = AdapterError("network", "stream_truncated" if incomplete else "",
                                   "stream ended without a terminal event" if incomplete else "reading stream: %s" % e)
        if not finished and not asm.finished:
            if self.cancelled:
                asm.finish("cancelled")
            else:
                if err is None:
                    err = AdapterError("network", "stream_truncated", "stream ended without a terminal event")
                asm.finish("error")
                return self.fail(err)
        self.a.out.send({"type": "end", "id": self.id})

    def send(self, body):
        """Sends the request with the retry policy of 000 §6.4, reporting
        every attempt and sleeping between them through metis."""
        attempts = 1 + max(self.a.cfg.get("max_retries", 0), 0)
        n = 1
        while True:
            status, err, data = 0, None, None
            try:
                conn, resp = self.http(body)
            except Cancelled:
                err = AdapterError("cancelled", "", "request cancelled")
            except (OSError, http.client.HTTPException) as e:
                if self.cancelled:
                    err = AdapterError("cancelled", "", "request cancelled")
                elif isinstance(e, (TimeoutError, socket.timeout)):
                    err = AdapterError("network", "timeout", "request timed out")
                else:
                    err = AdapterError("network", "", str(e) or type(e).__name__)
            else:
                if 200 <= resp.status < 300 and self.stream:
                    self.attempt(n, resp.status)
                    return conn, resp, None
                if 200 <= resp.status < 300:
                    # A non-streamed body is read within its attempt: one
                    # the connection cuts off is retried like any failure.
                    try:
                        data = resp.read()
                    except http.client.IncompleteRead as e:
                        err = AdapterError("network", "stream_truncated",
                                           "response body cut off after %d bytes: the connection closed before its end" % len(e.partial))
                    except (OSError, http.client.HTTPException) as e:
                        err = AdapterError("network", "", "reading response body: %s" % e)
                    if err is None:
                        self.attempt(n, resp.status)
                        return conn, resp, data
                    conn.close()
                    status = resp.status
                    if self.cancelled:
                        err = AdapterError("cancelled", "", "request cancelled")
            if err is None:  # an HTTP error status
                data = resp.read(1 << 20)
                conn.close()
                status = resp.status
                err = classify(status, resp.headers, data)
                err.status = status
                err.retry_after_ms = min(err.retry_after_ms or retry_after_ms(resp.headers, self.now), MAX_RETRY_AFTER_MS)
                if not err.provider_request_id:
                    err.provider_request_id = resp.headers.get("request-id") or resp.headers.get("x-request-id") or ""
                if (resp.headers.get("x-should-retry") or "") == "false":
                    err.retryable = False
            err.attempts = n
            if not err.retryable or n >= attempts or self.cancelled:
                self.attempt(n, status, err)
                raise err
            wait = err.retry_after_ms or backoff_ms(n)
            self.attempt(n, status, err, wait)
            if self.ask({"type": "sleep", "id": self.id, "ms": wait}) != "slept":
                raise Cancelled()
            n += 1

    def attempt(self, n, status, err=None, wait_ms=0):
        a = {"n": n, "status": status}
        if err is not None:
            a["error"] = err.wire()
        if wait_ms:
            a["wait_ms"] = wait_ms
        self.a.out.send({"type": "attempt", "id": self.id, "attempt": a})

    def http(self, body):
        u = urllib.parse.urlsplit(self.a.cfg["base_url"] or "https://api.anthropic.com")
        timeout = (self.a.cfg.get("timeout_ms") or 600_000) / 1000
        cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        conn = cls(u.hostname, u.port, timeout=timeout)
        headers = {"content-type": "application/json", "anthropic-version": API_VERSION}
        headers.update(self.a.cfg.get("extra_headers") or {})
        if self.a.cfg.get("api_key"):
            headers["x-api-key"] = self.a.cfg["api_key"]
        if self.a.beta:
            headers["anthropic-beta"] = ",".join(self.a.beta) if isinstance(self.a.beta, list) else self.a.beta
        conn.connect()
        with self.lock:
            self.sock = conn.sock
            if self.cancelled:
                conn.close()
                raise Cancelled()
        conn.request("POST", u.path.rstrip("/") + "/v1/messages", body=body, headers=headers)
        return conn, conn.getresponse()


def backoff_ms(n):
    d = 1000
    for _ in range(1, n):
        if d >= 30_000:
            break
        d *= 2
    d = min(d, 30_000)
    return int(d + random.random() * d / 4)


def main():
    out = Out()
    adapter, calls = None, {}
    for raw in sys.stdin.buffer:
        msg = json.loads(raw)
        t, mid = msg["type"], msg.get("id")
        if t == "init":
            adapter = Adapter(msg["config"], out)
            out.send({"type": "ready", "id": mid, "protocol": PROTOCOL, "adapter": {"name": NAME, "version": VERSION}})
        elif adapter is None:
            out.send({"type": "error", "id": mid, "error": {"class": "other", "message": "no init yet"}})
        elif t == "capabilities":
            out.send({"type": "capabilities", "id": mid, "capabilities": adapter.capabilities(msg["model"])})
        elif t == "estimate":
            out.send({"type": "estimate", "id": mid, "input_tokens": adapter.estimate(msg["request"])})
        elif t in ("complete", "stream"):
            call = Call(adapter, mid, msg, t == "stream", lambda i: calls.pop(i, None))
            calls[mid] = call
            threading.Thread(target=call.run, daemon=True).start()
        elif t in ("next", "slept", "cancel"):
            call = calls.get(mid)
            if call is not None:
                call.deliver(t, parse_now(msg.get("now")))
    for call in list(calls.values()):
        call.deliver("cancel")


if __name__ == "__main__":
    main()
