"""Hosts that run a framework's orchestrator unchanged under the OCK SUT protocol ock/1.

- `ock_hosts.amplifier` (`ock-amplifier`): an Amplifier orchestrator module on the real
  amplifier-core kernel: its ModuleCoordinator, HookRegistry, cancellation token, ChatResponse,
  ToolResult and LLMError classes.
- `ock_hosts.cugar` (`ock-cugar`): a CUGAR `OrchestratorProtocol.orchestrate()` async generator;
  its lifecycle stages become ock/1 events.

Both speak ock/1 through the stdlib-only `ock_adapter` module shipped next to this package.
"""

__version__ = "0.2.0"
