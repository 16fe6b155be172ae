"""The Admin API (/ext/admin): aliases, logger levels, profiling, plugin VMs."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from conformance.reference.calls import RpcCall
from conformance.reference.jsonrpc import SERVER_ERROR, RpcError, invalid_params
from conformance.reference.node.params import named, required_string, string
from conformance.reference.node.world import LEVELS

if TYPE_CHECKING:
    from conformance.reference.node import NodeService

MAX_ALIAS = 512


class AdminApi:
    def __init__(self, service: NodeService) -> None:
        self.service = service
        self.node = service.world.node
        self.lock = service.world.lock

    def methods(self) -> dict[str, Any]:
        return {
            "admin.alias": self.alias, "admin.aliasChain": self.alias_chain,
            "admin.getChainAliases": self.get_chain_aliases, "admin.getLoggerLevel": self.get_logger_level,
            "admin.setLoggerLevel": self.set_logger_level, "admin.loadVMs": self.load_vms,
            "admin.lockProfile": self.lock_profile, "admin.memoryProfile": self.memory_profile,
            "admin.startCPUProfiler": self.start_cpu_profiler, "admin.stopCPUProfiler": self.stop_cpu_profiler,
        }

    # --- aliases ---

    @staticmethod
    def _alias(params: dict[str, Any]) -> str:
        alias = string(params, "alias")
        # not shown: an empty alias would shadow /ext/ itself; a careful node refuses it.
        if not alias:
            raise invalid_params("alias must not be empty")
        if len(alias) > MAX_ALIAS:
            raise invalid_params(f"alias length is too long: {len(alias)} characters, at most {MAX_ALIAS}")
        return alias

    def alias(self, call: RpcCall) -> dict:
        params = named(call, required=("endpoint", "alias"))
        endpoint = required_string(params, "endpoint").strip("/")
        alias = self._alias(params).strip("/")
        if not alias:
            raise invalid_params("alias must name a path under /ext/")
        with self.lock:
            if self.service.lookup(endpoint) is None:
                raise RpcError(SERVER_ERROR, f"no API is served at /ext/{endpoint}")
            # An alias that names a path already served (another alias, or a built-in path) is refused.
            if self.service.lookup(alias) is not None:
                raise RpcError(SERVER_ERROR, f"/ext/{alias} is already in use")
            self.node.admin.endpoint_aliases[alias] = endpoint
        return {}

    def alias_chain(self, call: RpcCall) -> dict:
        params = named(call, required=("chain", "alias"))
        chain = required_string(params, "chain")
        alias = self._alias(params)
        with self.lock:
            chain_id = self.service.chain_id(chain)
            if chain_id is None:
                raise RpcError(SERVER_ERROR, f"there is no chain with ID or alias {chain!r}")
            if self.service.chain_id(alias) is not None:
                raise RpcError(SERVER_ERROR, f"{alias!r} is already a blockchain ID or chain alias")
            self.node.admin.chain_aliases[chain_id].append(alias)
        return {}

    def get_chain_aliases(self, call: RpcCall) -> dict:
        chain = required_string(named(call, required=("chain",)), "chain")
        with self.lock:
            chain_id = self.service.chain_id(chain)
            if chain_id is None:
                raise RpcError(SERVER_ERROR, f"there is no chain with ID or alias {chain!r}")
            # not shown whether the ID itself is listed: only the aliases are.
            return {"aliases": list(self.node.admin.chain_aliases[chain_id])}

    # --- logger levels ---

    def _logger(self, name: str) -> dict[str, str]:
        try:
            return self.node.admin.loggers[name]
        except KeyError:
            raise RpcError(SERVER_ERROR, f"logger {name!r} not found") from None

    def get_logger_level(self, call: RpcCall) -> dict:
        name = string(named(call), "loggerName")
        with self.lock:
            loggers = self.node.admin.loggers
            names = list(loggers) if not name else [name]
            return {"loggerLevels": {n: dict(self._logger(n)) for n in names}}

    @staticmethod
    def _level(params: dict[str, Any], name: str) -> str | None:
        value = string(params, name)
        if value is None:
            return None
        # not shown beyond DEBUG and INFO: the node's full set is accepted in any case and kept upper-case.
        if value.upper() not in LEVELS:
            raise invalid_params(f"unknown {name} {value!r}; one of {', '.join(LEVELS)}")
        return value.upper()

    def set_logger_level(self, call: RpcCall) -> dict:
        params = named(call)
        name = string(params, "loggerName")
        log_level, display_level = self._level(params, "logLevel"), self._level(params, "displayLevel")
        if log_level is None and display_level is None:
            raise invalid_params("logLevel and displayLevel must not both be omitted")
        with self.lock:
            targets = [self._logger(name)] if name else list(self.node.admin.loggers.values())
            for levels in targets:  # a level left out keeps its value
                if log_level is not None:
                    levels["logLevel"] = log_level
                if display_level is not None:
                    levels["displayLevel"] = display_level
        return {}

    # --- plugin VMs ---

    def load_vms(self, call: RpcCall) -> dict:
        named(call)
        with self.lock:
            admin = self.node.admin
            admin.load_vm_calls += 1
            failing = admin.flaky_plugin and admin.load_vm_calls % 2 == 1
        # not shown whether VMs loaded by an earlier call are listed again: every VM that loads is listed.
        result: dict[str, Any] = {"newVMs": {vm: list(names) for vm, names in self.node.vms.items()}}
        if failing:
            result["failedVMs"] = {self.node.flaky_vm: "failed to load plugin: handshake with the VM timed out"}
        else:
            result["newVMs"][self.node.flaky_vm] = ["flakyvm"]
        return result

    # --- profiling ---

    def lock_profile(self, call: RpcCall) -> dict:
        named(call)
        return {}

    def memory_profile(self, call: RpcCall) -> dict:
        named(call)
        return {}

    def start_cpu_profiler(self, call: RpcCall) -> dict:
        named(call)
        with self.lock:
            # not shown: starting while profiling is refused, as the runtime's profiler refuses it.
            if self.node.admin.profiling:
                raise RpcError(SERVER_ERROR, "cpu profiling already enabled")
            self.node.admin.profiling = True
        return {}

    def stop_cpu_profiler(self, call: RpcCall) -> dict:
        named(call)
        with self.lock:
            # not shown: stopping while stopped is refused, so a client learns no profile was written.
            if not self.node.admin.profiling:
                raise RpcError(SERVER_ERROR, "cpu profiling is not running")
            self.node.admin.profiling = False
        return {}
