"""Named variants: answers a real node gives where the documents leave it free, which the suite must accept.

Faults prove each check can fail; variants prove the checks do not fail where the documents are silent or
permissive. A variant wraps the reference's handlers exactly like a fault, breaks no rule, and names the rules
whose tests read what it changes (`reads`), so a self-test can run just those tests and expect them to pass.
"""
from __future__ import annotations

from typing import Any, ClassVar

from conformance.reference.calls import RpcCall
from conformance.reference.faults import Fault, RpcProceed
# The same middleware the faults use: a variant differs in what it changes, never in how it hooks in.
from conformance.reference.faults.data import _Mutate, _walk
from conformance.reference.faults.node import _Result

VARIANTS: dict[str, type[Variant]] = {}


class Variant(Fault):
    """An answer the documents allow; subclasses set `reads` and `allowed_by` and override one hook."""

    #: Rule IDs whose tests see what the variant changes: they must still pass.
    reads: ClassVar[tuple[str, ...]] = ()
    #: Why the documents allow it: the words that leave it open, or the silence.
    allowed_by: ClassVar[str] = ""
    #: Identifiers the run is given (--sample NAME=VALUE) so that its tests meet the variant.
    samples: ClassVar[dict[str, str]] = {}


def variant(cls: type[Variant]) -> type[Variant]:
    """Class decorator: adds a variant under its class name."""
    if cls.__name__ in VARIANTS:
        raise ValueError(f"variant {cls.__name__} is registered twice")
    if not cls.reads or not cls.allowed_by:
        raise ValueError(f"variant {cls.__name__} must name the rules it reads and why the documents allow it")
    VARIANTS[cls.__name__] = cls
    return cls


def all_variants() -> list[type[Variant]]:
    return list(VARIANTS.values())


@variant
class BrandedRulesMember(Variant, _Result):
    """eth_getActiveRulesAt names networkRules after the network's brand, as nodes do."""

    methods = ("eth_getActiveRulesAt",)
    reads = ("RPC-EVM-022", "RPC-EVM-023", "RPC-EVM-024", "RPC-EVM-025", "RPC-EVM-026", "RPC-EVM-027")
    allowed_by = "the identifier of this member carries a neutral word in place of the network's brand name"

    def patch(self, result: Any, call: RpcCall) -> Any:
        if isinstance(result, dict) and "networkRules" in result:
            result["brandRules"] = result.pop("networkRules")
        return result


@variant
class ChainConfigLeavesOutEmptyMembers(Variant, _Result):
    """eth_getChainConfig and eth_getActivePrecompilesAt leave out false, empty and retired members."""

    methods = ("eth_getChainConfig", "eth_getActivePrecompilesAt")
    reads = ("RPC-EVM-008", "RPC-EVM-009", "RPC-EVM-010", "RPC-EVM-011", "RPC-EVM-012", "RPC-EVM-013",
             "RPC-EVM-014", "RPC-EVM-015", "RPC-EVM-016", "RPC-EVM-017", "RPC-EVM-018", "RPC-EVM-019",
             "RPC-EVM-020", "RPC-EVM-021", "RPC-EVM-028", "RPC-EVM-029", "RPC-ENV-014")
    allowed_by = "the chain config table gives each member's type, not that it is always present"

    def patch(self, result: Any, call: RpcCall) -> Any:
        if not isinstance(result, dict):
            return result
        if "chainId" not in result:  # eth_getActivePrecompilesAt: a map of precompile configs
            return {name: _without_admins(config) for name, config in result.items()}
        result.pop("eip150Hash", None)
        if result.get("allowFeeRecipients") is False:
            del result["allowFeeRecipients"]
        for name, value in list(result.items()):
            if name.endswith("Config") and name != "feeConfig":
                result[name] = _without_admins(value)
        result["upgrades"] = {}
        return result


def _without_admins(config: Any) -> Any:
    return {k: v for k, v in config.items() if k != "adminAddresses"} if isinstance(config, dict) else config


@variant
class EncodingIgnoredWhereNothingIsEncoded(Variant):
    """index.getIndex and index.isAccepted ignore the encoding: their results carry nothing encoded."""

    reads = ("RPC-IDX-041", "RPC-IDX-015", "RPC-ENV-001", "RPC-ENV-005", "RPC-ENV-006", "RPC-ENV-007",
             "RPC-ENV-015")
    allowed_by = "RPC-IDX-041: the results of index.getIndex and index.isAccepted carry nothing encoded"

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.method in ("index.getIndex", "index.isAccepted") and isinstance(call.params, dict):
            call = call.with_(params={k: v for k, v in call.params.items() if k != "encoding"} | {"encoding": "hex"})
        return proceed(call)


@variant
class EncodingReadWithoutCase(Variant):
    """The Index API reads the encoding without regard to case: "HEX" is hex."""

    reads = ("RPC-IDX-015", "RPC-IDX-004", "RPC-ENV-001", "RPC-ENV-005", "RPC-ENV-006", "RPC-ENV-007",
             "RPC-ENV-015")
    allowed_by = "another spelling of hex is not another encoding; the document does not ask for one case"

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        if call.api == "index" and isinstance(call.params, dict) and isinstance(call.params.get("encoding"), str):
            call = call.with_(params={**call.params, "encoding": call.params["encoding"].lower()})
        return proceed(call)


@variant
class UnknownValidatorIsAnError(Variant):
    """validators.getCurrentValidators refuses a nodeIDs list naming a node that is not a current validator."""

    reads = ("RPC-VAL-013", "RPC-VAL-014", "RPC-VAL-015", "RPC-VAL-016", "RPC-VAL-017")
    allowed_by = "RPC-VAL-017: what a node ID that is not a current validator gives is not shown"
    # An operator may name their own node, which need not be a validator.
    samples = {"validator_node_id": "NodeID-111111111111111111116DBWJs"}

    def rpc(self, call: RpcCall, proceed: RpcProceed) -> dict | None:
        reply = proceed(call)
        wanted = call.params.get("nodeIDs") if isinstance(call.params, dict) else None
        if call.method != "validators.getCurrentValidators" or not wanted or reply is None or "result" not in reply:
            return reply
        current = {v.get("nodeID") for v in reply["result"].get("validators", [])}
        missing = [node for node in wanted if node not in current]
        if missing:
            return {"jsonrpc": "2.0", "id": reply.get("id"),
                    "error": {"code": -32000, "message": f"couldn't find validator with node ID {missing[0]}"}}
        return reply


@variant
class NullForValuesNotKnown(Variant, _Mutate):
    """The Data API writes null, instead of leaving the member out, for a token value it does not know."""

    members: ClassVar[tuple[str, ...]] = ("tokenReputation", "logoUri", "price", "balanceValue", "tokenUri")
    reads = tuple(f"DATA-SHP-{n:03d}" for n in (*range(1, 16), 17, 18, 21))
    allowed_by = "Which response fields are always present and which may be omitted: not shown."

    def mutate(self, body: dict[str, Any]) -> None:
        _walk(body, self.null)

    def null(self, obj: dict[str, Any]) -> None:
        obj.update({name: None for name in self.members if name in obj})
