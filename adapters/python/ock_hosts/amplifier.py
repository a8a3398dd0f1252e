"""ock-amplifier: an Amplifier orchestrator module, unchanged, on the real amplifier-core, under ock/1.

    ock-amplifier PATH              a module package: a folder holding amplifier_module_<id>/
                                    (a cloned loop module) or the package folder itself; loaded
                                    by amplifier-core's ModuleLoader (validation included)
    ock-amplifier MODULE            an importable module: its mount(coordinator, config)
    ock-amplifier MODULE:Class      an importable module: Class(config) is the orchestrator
    ock-amplifier FILE.py[:Class]   a single file, as MODULE or MODULE:Class

What the orchestrator gets is what Amplifier's kernel gives it, built from the session document
($OCK_URL/ock/v1/session):

- `coordinator`: amplifier-core's ModuleCoordinator (the Rust kernel), with the context, the
  providers and the tools mounted; `process_hook_result` is the kernel's own.
- `hooks`: the coordinator's HookRegistry. One handler, registered for every event name, POSTs
  `{"event", "data"}` to $OCK_URL/ock/v1/events while an execute runs and returns the reply as a
  HookResult; the registry then does what it always does (adds `timestamp`, reduces results).
- `providers`: one per session provider, on the OpenAI Chat Completions or Anthropic Messages
  wire of the mock. `complete(ChatRequest)` returns a ChatResponse built as Amplifier's provider
  modules build it: `content` holds TextBlock and ToolCallBlock, `tool_calls` ToolCall,
  `content_blocks` the TextContent/ToolCallContent event blocks, `usage` a Usage; arguments that
  are not a JSON object become `{}`, as provider-openai does. Failures raise amplifier-core's
  LLMError classes. A provider makes one request per call: it never retries.
- `tools`: one per session tool; `execute(input)` POSTs to $OCK_URL/ock/v1/tools/{name} and
  returns amplifier-core's ToolResult (so its texts are Amplifier's). An endpoint failure
  raises (ToolEndpointError). The tool call id is the one of the model's call with that name
  and input (Amplifier's Tool.execute has no id).
- `context`: an in-memory ContextManager.

SIGINT works the kernel's way: the first requests graceful cancellation on the coordinator's
token, the second immediate cancellation, and the running execute() task is then cancelled.
Between executes SIGINT is ignored. The token is reset before each execute. Events emitted
outside an execute (none, from a loop) are not forwarded.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import inspect
import json
import os
import signal
import sys
import traceback
from pathlib import Path
from typing import Any, Callable

import ock_adapter as oa
from amplifier_core import HookResult, ModuleCoordinator, ToolResult
from amplifier_core import events as amplifier_events
from amplifier_core import llm_errors
from amplifier_core.content_models import TextContent, ToolCallContent
from amplifier_core.message_models import ChatResponse, TextBlock, ToolCall, ToolCallBlock, Usage

__all__ = ["main", "run", "load_orchestrator", "OckChatResponse", "HostProvider", "HostTool",
           "HookBridge", "llm_error", "chat_response", "tool_result"]

ORCHESTRATOR_NAME = "orchestrator"

#: Event names a loop may emit that amplifier-core's list lacks: ock/1's own names and the
#: loops' non-canonical ones. The handler is registered for these and for ALL_EVENTS up front;
#: any other name is registered the first time the hooks passed to execute() emit it.
EXTRA_EVENTS = (
    "provider:stream", "tool:selecting", "tool:selected", "error:tool", "error:provider",
    "context:pre-compact", "orchestrator:rate_limit_delay", "orchestrator:steering_injected",
    "orchestrator:goal_progress", "session:config",
)


def _log(msg: str) -> None:
    print(f"[ock-amplifier] {msg}", file=sys.stderr, flush=True)


# ---- Responses and errors, as Amplifier's provider modules build them ---------------------------

class OckChatResponse(ChatResponse):
    """ChatResponse with the two fields provider-openai's OpenAIChatResponse adds."""

    content_blocks: list[TextContent | ToolCallContent] | None = None
    text: str | None = None


def chat_response(raw: dict) -> OckChatResponse:
    """The ChatResponse of one reply (ock_adapter's neutral dict): a TextBlock for the text, a
    ToolCallBlock and a ToolCall per call (arguments that are not an object become {})."""
    content: list[Any] = []
    events: list[Any] = []
    calls: list[ToolCall] = []
    text = raw.get("text") or ""
    if text:
        content.append(TextBlock(text=text))
        events.append(TextContent(text=text))
    for c in raw.get("tool_calls") or []:
        args = c.get("arguments")
        args = args if isinstance(args, dict) else {}
        cid, name = str(c.get("id") or ""), str(c.get("name") or "")
        content.append(ToolCallBlock(id=cid, name=name, input=args))
        events.append(ToolCallContent(id=cid, name=name, arguments=args))
        calls.append(ToolCall(id=cid, name=name, arguments=args))
    usage = None
    u = raw.get("usage") or {}
    if u.get("input_tokens") is not None or u.get("output_tokens") is not None:
        i, o = int(u.get("input_tokens") or 0), int(u.get("output_tokens") or 0)
        usage = Usage(input_tokens=i, output_tokens=o, total_tokens=int(u.get("total_tokens") or i + o))
    return OckChatResponse(content=content, tool_calls=calls or None, usage=usage,
                           finish_reason=raw.get("finish_reason"), content_blocks=events or None,
                           text=text or None)


def llm_error(e: oa.ProviderError) -> llm_errors.LLMError:
    """amplifier-core's LLMError class for a failed request, chosen as provider-openai chooses."""
    kw: dict[str, Any] = {"provider": e.provider, "model": e.model, "status_code": e.status_code}
    msg, status = e.message, e.status_code
    if e.type == "timeout":
        return llm_errors.LLMTimeoutError(msg, retryable=True, **kw)
    if e.type == "connection_error":
        return llm_errors.NetworkError(msg, retryable=True, **kw)
    if e.type == "stream_error":
        return llm_errors.StreamError(msg, retryable=True, **kw)
    if status == 429:
        return llm_errors.RateLimitError(msg, retry_after=e.retry_after, retryable=True, **kw)
    if status == 401:
        return llm_errors.AuthenticationError(msg, **kw)
    if status == 403:
        return llm_errors.AccessDeniedError(msg, **kw)
    if status == 404:
        return llm_errors.NotFoundError(msg, **kw)
    if status == 400:
        low = msg.lower()
        if "context length" in low or "too many tokens" in low or "maximum context" in low:
            return llm_errors.ContextLengthError(msg, **kw)
        return llm_errors.InvalidRequestError(msg, **kw)
    if status is not None and status >= 500:
        return llm_errors.ProviderUnavailableError(msg, retryable=True, retry_after=e.retry_after, **kw)
    return llm_errors.LLMError(msg, retryable=e.retryable, retry_after=e.retry_after, **kw)


def tool_result(r: oa.ToolResult) -> ToolResult:
    """amplifier-core's ToolResult for a tool endpoint's reply."""
    error = r.error
    if error is not None and not isinstance(error, dict):
        error = {"message": str(error)}
    return ToolResult(success=bool(r.success), output=r.output, error=error)


def _plain(request: Any) -> Any:
    """A ChatRequest as plain JSON values (extra message fields such as tool_calls kept)."""
    dump = getattr(request, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else request


class HostProvider:
    """A session provider with Amplifier's Provider interface."""

    def __init__(self, spec: dict, *, trace_id: str | None, ledger: Any):
        self.wire = oa.make_provider(spec, trace_id=trace_id, ledger=ledger)
        self.name: str = spec["name"]
        self.priority: int = spec.get("priority", 100)
        self.default_model: str = spec["model"]
        self.config: dict = {"priority": self.priority, "default_model": self.default_model}

    def __repr__(self) -> str:
        return f"<HostProvider {self.name} {self.wire.api} {self.default_model}>"

    def get_info(self) -> dict:
        return {"id": self.name, "display_name": self.name, "api": self.wire.api,
                "model": self.default_model, "priority": self.priority}

    async def list_models(self) -> list:
        return []

    async def complete(self, request: Any, **kwargs: Any) -> OckChatResponse:
        try:
            raw = await self.wire.complete(_plain(request), timeout=kwargs.get("timeout"))
        except oa.ProviderError as e:
            raise llm_error(e) from None
        return chat_response(raw)

    def parse_tool_calls(self, response: Any) -> list:
        return list(getattr(response, "tool_calls", None) or [])


class HostTool:
    """A session tool with Amplifier's Tool interface."""

    def __init__(self, spec: dict, url: str, *, trace_id: str | None, ledger: Any,
                 coordinator: Any = None):
        self.endpoint = oa.OckTool(spec, url, trace_id=trace_id, ledger=ledger)
        self.name: str = spec["name"]
        self.description: str = spec.get("description", "")
        self.coordinator = coordinator

    @property
    def input_schema(self) -> dict:
        return self.endpoint.input_schema

    def __repr__(self) -> str:
        return f"<HostTool {self.name}>"

    def _dispatch_id(self) -> str | None:
        """The call id loop-streaming records for the running task, when there is one."""
        contexts = getattr(self.coordinator, "_tool_dispatch_contexts", None)
        if not isinstance(contexts, dict):
            return None
        entry = contexts.get(asyncio.current_task())
        return entry.get("tool_call_id") if isinstance(entry, dict) else None

    async def execute(self, input: Any) -> ToolResult:
        return tool_result(await self.endpoint.execute(input, self._dispatch_id()))


# ---- Hooks ----------------------------------------------------------------------------------------

def _hook_result(reply: Any) -> HookResult:
    """The mock's reply as amplifier-core's HookResult; anything unusable is continue."""
    if not isinstance(reply, dict) or reply.get("action") not in oa.HOOK_ACTIONS:
        return HookResult()
    fields = {k: v for k, v in reply.items() if k in HookResult.model_fields and v is not None}
    try:
        return HookResult.model_validate(fields)
    except ValueError:
        keep = {k: fields[k] for k in ("action", "reason", "data") if k in fields}
        try:
            return HookResult.model_validate(keep)
        except ValueError:
            return HookResult()


class HookBridge:
    """The one hook handler: while an execute runs, each event is one POST to the events
    endpoint and the reply is the handler's HookResult. A failed POST counts as continue."""

    def __init__(self, url: str, registry: Any):
        self.url = f"{url}/ock/v1/events"
        self.registry = registry
        self.open = False
        self.registered: set[str] = set()
        self.forwarded = 0

    def ensure(self, event: str) -> None:
        if event not in self.registered:
            self.registered.add(event)
            self.registry.register(event, self.handle, priority=0, name=f"ock-bridge:{event}")

    def register_known(self) -> None:
        for event in list(amplifier_events.ALL_EVENTS) + list(EXTRA_EVENTS):
            self.ensure(event)

    async def handle(self, event: str, data: Any) -> HookResult:
        if not self.open:
            _log(f"event {event!r} outside an execute: not forwarded")
            return HookResult()
        self.forwarded += 1
        try:
            reply = await oa.http_request("POST", self.url, {"event": event, "data": data},
                                          abort_on_cancel=False)
        except OSError as e:
            _log(f"event {event!r}: request failed ({e}); treated as continue")
            return HookResult()
        if reply.status != 200:
            _log(f"event {event!r}: HTTP {reply.status}; treated as continue")
            return HookResult()
        try:
            return _hook_result(reply.json())
        except ValueError:
            return HookResult()


class ForwardingHooks:
    """The `hooks` passed to execute(): the coordinator's HookRegistry, which first makes sure
    the bridge handles the event name being emitted (custom names included)."""

    def __init__(self, registry: Any, bridge: HookBridge):
        self._registry, self._bridge = registry, bridge

    async def emit(self, event: str, data: Any) -> Any:
        self._bridge.ensure(event)
        return await self._registry.emit(event, data)

    async def emit_and_collect(self, event: str, data: Any, timeout: float | None = None) -> list:
        self._bridge.ensure(event)
        return await self._registry.emit_and_collect(event, data, timeout)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._registry, name)


class HostContext(oa.InMemoryContext):
    """The conversation (Amplifier's ContextManager interface), kept across executes."""


# ---- Loading an orchestrator ------------------------------------------------------------------

class _PathSource:
    def __init__(self, path: Path):
        self.path = path

    def resolve(self) -> Path:
        return self.path


class _PathResolver:
    """A module-source-resolver that answers every module id with one folder."""

    def __init__(self, path: Path):
        self.path = path

    def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> _PathSource:
        return _PathSource(self.path)


def _package_of(path: Path) -> tuple[Path, str]:
    """(module root, package name) of a module folder or of the package folder itself."""
    if (path / "__init__.py").is_file():
        return path.parent, path.name
    found = sorted(p.name for p in path.iterdir()
                   if p.is_dir() and p.name.startswith("amplifier_module_") and (p / "__init__.py").is_file())
    if len(found) != 1:
        raise ImportError(f"{path}: expected one amplifier_module_* package folder, found "
                          f"{', '.join(found) or 'none'}")
    return path, found[0]


async def _load_package(path: Path, coordinator: Any, config: dict) -> Any:
    """Amplifier's way: ModuleLoader.load(module_id, config) with a source resolver pointing at
    the folder (the loader validates the module, imports the package and returns its mount)."""
    from amplifier_core.loader import ModuleLoader

    root, package = _package_of(path.resolve())
    prefix = "amplifier_module_"
    module_id = package[len(prefix):].replace("_", "-") if package.startswith(prefix) else package
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    source = root if package.startswith(prefix) else root / package
    await coordinator.mount("module-source-resolver", _PathResolver(source))
    loader = ModuleLoader(coordinator=coordinator)
    mount = await loader.load(module_id, config, source_hint=str(source), coordinator=coordinator)
    await mount(coordinator)
    return coordinator.get(ORCHESTRATOR_NAME)


def _import(spec: str) -> Any:
    if spec.endswith(".py") or os.sep in spec:
        path = os.path.abspath(spec)
        name = Path(path).stem.replace("-", "_")
        sys.path.insert(0, os.path.dirname(path))
        loader_spec = importlib.util.spec_from_file_location(name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        loader_spec.loader.exec_module(module)
        return module
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(spec)


async def load_orchestrator(target: str, coordinator: Any, config: dict) -> Any:
    """The orchestrator named by `target` (see the module's docstring), mounted as Amplifier
    mounts one: at the coordinator's `orchestrator` mount point."""
    path = Path(target)
    if path.is_dir():
        orch = await _load_package(path, coordinator, config)
    else:
        spec, _, class_name = target.rpartition(":") if ":" in target else (target, "", "")
        module = _import(spec)
        if class_name:
            cls = getattr(module, class_name, None)
            if not inspect.isclass(cls):
                raise ImportError(f"{spec} has no class {class_name}")
            await coordinator.mount(ORCHESTRATOR_NAME, cls(config))
        else:
            mount = getattr(module, "mount", None)
            if not inspect.iscoroutinefunction(mount):
                raise ImportError(f"{spec} has no async mount(coordinator, config); name a class "
                                  f"as {spec}:Class")
            returned = await mount(coordinator, config)
            if returned is not None and hasattr(returned, "execute"):
                await coordinator.mount(ORCHESTRATOR_NAME, returned)
        orch = coordinator.get(ORCHESTRATOR_NAME)
    if orch is None or not inspect.iscoroutinefunction(getattr(orch, "execute", None)):
        raise ImportError(f"{target}: nothing with an async execute() was mounted as the orchestrator")
    return orch


# ---- The run ------------------------------------------------------------------------------------

def _execute_kwargs(orch: Any, **kw: Any) -> dict:
    """The kernel passes every argument by keyword, coordinator included; an execute() that has
    no coordinator parameter (nor **kwargs) is called without it."""
    params = inspect.signature(orch.execute).parameters
    if "coordinator" not in params and not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        kw.pop("coordinator")
    return kw


class _Host:
    def __init__(self, target: str, url: str, extra: dict | None, out: Any):
        self.target, self.url, self.extra, self.out = target, url.rstrip("/"), extra or {}, out
        self.coordinator: Any = None
        self.task: asyncio.Task | None = None
        self.sigints = 0
        self.index = 0

    def on_sigint(self) -> None:
        task, token = self.task, self.coordinator.cancellation if self.coordinator else None
        if task is None or task.done() or token is None:
            _log("SIGINT between executes: ignored")
            return
        self.sigints += 1
        if self.sigints == 1:
            token.request_graceful()
            _log(f"SIGINT: graceful cancellation of execute {self.index} requested")
        elif self.sigints == 2:
            token.request_immediate()
            task.cancel()
            _log(f"SIGINT again: immediate cancellation of execute {self.index}")
        else:
            _log("SIGINT: already cancelled immediately; ignored")

    async def setup(self) -> tuple[Any, Any, oa.Session, HookBridge] | None:
        try:
            reply = await oa.http_request("GET", f"{self.url}/ock/v1/session")
            if reply.status != 200:
                raise oa.SessionError(f"GET /ock/v1/session returned HTTP {reply.status}")
            session = oa.parse_session(reply.body)
        except (OSError, oa.SessionError, ValueError) as e:
            _log(f"cannot read the session from {self.url}: {e}")
            return None
        oa.SESSION = session
        config = dict(session.config)
        config.update(self.extra)
        self.coordinator = coordinator = ModuleCoordinator()
        bridge = HookBridge(self.url, coordinator.hooks)
        bridge.register_known()
        ledger = oa._CallLedger()
        await coordinator.mount("context", HostContext())
        for p in session.providers:
            await coordinator.mount("providers", HostProvider(p, trace_id=session.trace_id, ledger=ledger),
                                    name=p["name"])
        for t in session.tools:
            await coordinator.mount("tools", HostTool(t, self.url, trace_id=session.trace_id,
                                                      ledger=ledger, coordinator=coordinator),
                                    name=t["name"])
        try:
            orch = await load_orchestrator(self.target, coordinator, config)
        except Exception:  # noqa: BLE001 - reported, then the run ends
            _log(f"loading the orchestrator {self.target} failed:\n" + traceback.format_exc())
            return None
        return coordinator, orch, session, bridge

    async def main(self) -> int:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self.on_sigint)
        ready = await self.setup()
        if ready is None:
            return 2
        coordinator, orch, session, bridge = ready
        hooks = ForwardingHooks(coordinator.hooks, bridge)
        _log(f"scenario {session.scenario or '?'}: {len(session.prompts)} prompt(s), "
             f"orchestrator {type(orch).__module__}.{type(orch).__name__}")
        for i, prompt in enumerate(session.prompts, 1):
            self.index, self.sigints = i, 0
            coordinator.cancellation.reset()
            coordinator.reset_turn()
            kwargs = _execute_kwargs(orch, prompt=prompt, context=coordinator.get("context"),
                                     providers=coordinator.get("providers") or {},
                                     tools=coordinator.get("tools") or {}, hooks=hooks,
                                     coordinator=coordinator)
            bridge.open = True
            self.task = asyncio.ensure_future(orch.execute(**kwargs))
            await asyncio.wait([self.task])
            bridge.open = False
            task, self.task = self.task, None
            oa.report_execute(task, i, "ock-amplifier", self.out)
        return 0


def run(target: str, url: str | None = None, config: dict | None = None, out: Any = None) -> int:
    """Run the orchestrator `target` for every prompt of the session at `url` (default
    $OCK_URL). Returns 0 after the last prompt, 2 when the session or the orchestrator cannot
    be set up."""
    url = url or os.environ.get("OCK_URL")
    if not url:
        _log("OCK_URL is not set")
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # until the loop's handler is in place
    host = _Host(target, url, config, out or sys.stdout)
    try:
        return asyncio.run(host.main())
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def parse_config(ap: argparse.ArgumentParser, text: str | None) -> dict | None:
    if text is None:
        return None
    try:
        extra = json.loads(text)
    except ValueError as e:
        ap.error(f"--config is not JSON: {e}")
    if not isinstance(extra, dict):
        ap.error("--config must be a JSON object")
    return extra


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="ock-amplifier", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run an Amplifier orchestrator module unchanged under ock/1, on amplifier-core.",
        epilog=(__doc__ or "").split("\n\n", 1)[1])
    ap.add_argument("orchestrator", help="a module package folder, MODULE, MODULE:Class, or FILE.py[:Class]")
    ap.add_argument("--config", default=None, help="JSON object merged over the session config")
    ap.add_argument("--url", default=None, help="mock root URL (default: $OCK_URL)")
    args = ap.parse_args(argv)
    extra = parse_config(ap, args.config)
    sys.dont_write_bytecode = True
    return exit_now(run(args.orchestrator, args.url, extra))


def exit_now(code: int) -> int:
    """Ends the process with `code` without interpreter finalization: amplifier-core's Rust
    runtime keeps threads that can abort a finalizing interpreter (PyGILState_Release), which
    would turn a clean run into SIGABRT."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
