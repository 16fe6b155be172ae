"""Every answer of a run judged against the declared invariants, identities and chronologies, as it arrives.

The watch is a listener of the run's HTTP session: it reads each documented answer once, finds the objects of the
schemas that declare something, and records, in the ledger of the test whose request brought the answer, a held
check or a violation of the declaration's rule. A violation never stops the test that happened to see it; that
test reports it at its end, under the declaration's rule.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from conformance import evidence
from conformance.clients.http import SECRET_PLACEHOLDER, Exchange
from conformance.errors import Violation
from conformance.meaning import identities, instances, invariants, members
from conformance.meaning.answers import Answer, answer_of
from conformance.meaning.declarations import Declaration, of_kind
from conformance.rules import load_catalogue

#: Objects of one answer compared with the identity map at most (every invariant is still judged on each).
MAX_COMPARED = 200
#: Requests the watch may send in a run to ask an answer again before calling a disagreement a deviation; past
#: them, a disagreement is not charged (a true deviation shows on the first ones).
MAX_RESENT = 200


#: What asking again returns when the answer, read again, does not show the object at all.
ABSENT: dict[str, Any] = {}


class Watch:
    """Judges each answer; `record` is the HttpSession listener."""

    def __init__(self, resend: Callable[[Exchange], Exchange] | None = None) -> None:
        self.map = identities.IdentityMap()
        self._resend = resend
        self._send: Callable[[str, str, bytes], Exchange] | None = None
        self._resent = 0
        self._local = threading.local()
        self._lock = threading.Lock()
        self._series: dict[tuple[str, str], Any] = {}   # (identity, scope) -> the newest key of that series seen
        self._judged: dict[tuple[Any, ...], Any] = {}    # the invariants' verdicts of objects seen (invariants.judged)
        self._canonical: Callable[[str, str, Any], Any] = lambda api, name, value: value
        self._writes = {d.subject for d in of_kind("write")}

    def listen(self, session: Any) -> None:
        """Judges every exchange of `session`, asking it again for an answer that disagrees with an earlier one."""
        self._resend = resender(session)
        self._send = lambda method, url, body: session.request(
            method, url, headers={"content-type": "application/json"}, body=body)
        session.listeners.append(self.record)

    def spell(self, canonical: Callable[[str, str, Any], Any]) -> None:
        """How scope values are read (through the API's spelling tables, once identifiers are discovered)."""
        self._canonical = canonical

    def record(self, exchange: Exchange) -> None:
        if getattr(self._local, "asking", False):
            return
        answer = answer_of(exchange)
        if answer is None:
            return
        wanted = components(answer.api)
        if not wanted:
            return
        found = list(instances.instances(answer.api, answer.schema, answer.value, wanted))
        if not found:
            return
        # each object's text, hashed once for both memos (invariants' verdicts, identities' fingerprints)
        texts = {id(instance): hash(repr(instance)) for _, _, instance in found}
        self._invariants(answer, found, texts)
        self._identities(answer, found, texts)

    # Invariants --------------------------------------------------------------------------------------------------

    def _invariants(self, answer: Answer, found: list[tuple[str, str, dict[str, Any]]], texts: dict[int, int]) -> None:
        broken: dict[str, list[str]] = {}
        held: dict[str, Declaration] = {}
        by_rule: dict[str, Declaration] = {}
        # when the answer arrived, by the suite's clock: what a member that names a moment is compared with
        context = {"now": answer.exchange.sent_at + answer.exchange.elapsed} if answer.exchange.sent_at else {}
        for component, pointer, instance in found:
            for invariant, ok in invariants.judged(answer.api, component, instance, answer.params, context,
                                                   self._judged, texts[id(instance)]):
                rule = invariant.declaration.rule
                by_rule[rule] = invariant.declaration
                if ok:
                    held[invariant.declaration.id] = invariant.declaration
                else:
                    broken.setdefault(rule, []).append(f"{pointer}: {_shown(instance, invariant.declaration)}")
        for declaration in held.values():
            if declaration.rule not in broken:
                evidence.held(declaration.rule, answer.exchange)
                evidence.verified(declaration.id, "held", answer.operation)
        for rule, where in broken.items():
            declaration = by_rule[rule]
            _breach(rule, f"{answer.subject} answers {len(where)} {declaration.subject} object(s) that break "
                          f"{declaration.get('holds')}", expected=declaration.get("holds"),
                    received="; ".join(where[:3]), exchange=answer.exchange)

    # Identities and chronologies -----------------------------------------------------------------------------------

    def _identities(self, answer: Answer, found: list[tuple[str, str, dict[str, Any]]], texts: dict[int, int]) -> None:
        declared = identities.by_component(answer.api)
        ordered = identities.chronologies(answer.api)
        newest = _newest(answer, found, declared, lambda declaration_id, top: self._newest_of_series(
            answer, declaration_id, top))
        compared = 0
        for component, pointer, instance in found:
            for identity in declared.get(component, ()):
                if compared >= MAX_COMPARED:
                    break
                if id(instance) in newest.get(identity.declaration.id, ()):
                    continue   # the newest point of an answer may still change
                scope = identities.scope_of(identity.declaration, answer.params,
                                            lambda name, value: self._canonical(answer.api, name, value))
                key = identity.key(instance, scope, pointer)
                if key is None:
                    continue
                compared += 1
                self._compare(answer, identity, key, instance, texts[id(instance)])
            for declaration in ordered.get(component, ()):
                scope = identities.scope_of(declaration, answer.params,
                                            lambda name, value: self._canonical(answer.api, name, value))
                self._order(answer, declaration, scope, instance)

    def _newest_of_series(self, answer: Answer, declaration_id: str, top: Any) -> bool:
        """Whether `top` is the newest key the run has seen of its series (the identity's scope of this answer):
        no answer showed a later one. Remembers it as the series' newest when it is."""
        declaration = next(identity.declaration for found in identities.by_component(answer.api).values()
                           for identity in found if identity.declaration.id == declaration_id)
        scope = identities.scope_of(declaration, answer.params,
                                    lambda name, value: self._canonical(answer.api, name, value))
        series = (declaration_id, json.dumps(scope, sort_keys=True, default=str))
        with self._lock:
            seen = self._series.get(series)
            if seen is None or top >= seen:
                self._series[series] = top
                return True
            return False

    def _compare(self, answer: Answer, identity: identities.Identity, key: tuple[Any, ...],
                 instance: dict[str, Any], seen_as: int | None = None) -> None:
        outcome = self.map.see(identity, key, instance, answer.exchange, answer.subject, answer.params, seen_as)
        if outcome is False:
            return
        if outcome is True:
            evidence.held(identity.declaration.rule, answer.exchange)
            evidence.verified(identity.declaration.id, "compared", answer.operation)
            return
        assert isinstance(outcome, identities.Disagreement)
        if self._resend is not None and self._resent + 2 > MAX_RESENT \
                and _rereadable(outcome.earlier.exchange, self._writes):
            return   # no request left to ask both answers again: an odd answer is never charged unasked
        rule = identities.charged_rule(outcome, answer.subject, answer.params)
        again = self._ask_again(outcome.earlier.exchange, identity, key)
        if again is ABSENT:
            # asked again, the earlier request does not show the object at all: that answer was another's
            self.map.replace(identity, key, instance, answer.exchange, answer.subject, answer.params)
            return
        if again is not None and not _differs(identity, again, instance):
            # the earlier answer was odd, or the object changed since: what is seen now stands
            self.map.replace(identity, key, instance, answer.exchange, answer.subject, answer.params)
            evidence.held(rule, answer.exchange)
            return
        later = self._ask_again(answer.exchange, identity, key)
        if later is ABSENT:
            return   # asked again, this request does not show the object at all: this answer was another's
        if later is not None and again is not None and not _differs(identity, again, later):
            evidence.held(rule, answer.exchange)   # this answer was the odd one
            return
        if rule == identity.declaration.rule and identity.declaration.get("witness"):
            witnessed = self._witness(answer, identity, key, instance)
            if witnessed is not None:
                rule = identities.witness_rule(
                    identity.declaration, outcome.earlier, answer.subject,
                    earlier_agrees=not any(witnessed.get(name, (None,))[0] != outcome.earlier.members[name][0]
                                           for name in outcome.differing),
                    later_agrees=not _differs(identity, instance, witnessed_instance(witnessed))) or rule
        earlier = outcome.earlier.exchange
        what = identity.declaration.get("kind")
        _breach(rule, f"one {what} ({_key_text(key)}) is answered differently by two requests",
                expected=f"as #{earlier.number} {earlier.method} {earlier.url} showed it: "
                         + "; ".join(f"{name} = {was}" for name, (was, _) in outcome.differing.items()),
                received=f"#{answer.exchange.number} shows "
                         + "; ".join(f"{name} = {now}" for name, (_, now) in outcome.differing.items()),
                exchange=answer.exchange)

    def _order(self, answer: Answer, declaration: Declaration, scope: tuple[Any, ...],
               instance: dict[str, Any]) -> None:
        placed = self.map.place(declaration, scope, instance, answer.exchange.number,
                                (answer.subject, answer.params))
        if placed is None:
            return
        if placed is True:
            evidence.held(declaration.rule, answer.exchange)
            evidence.verified(declaration.id, "held", answer.operation)
            return
        assert isinstance(placed, tuple)
        first, second = placed
        by, then = declaration.get("by"), declaration.get("then")
        sources = [self.map.sources.get(entry[2]) for entry in (first, second)]
        rule = declaration.rule
        if sources[0] is not None and sources[1] is not None:
            rule = identities.spelling_rule(declaration, sources[0], sources[1]) or rule
        _breach(rule, f"a {declaration.get('kind')} with a larger {by} has an earlier {then}",
                expected=f"{then} never decreasing as {by} grows",
                received=f"{by} {first[0]:g} has {then} {first[1]:g} (exchange #{first[2]}), {by} {second[0]:g} "
                         f"has {then} {second[1]:g} (exchange #{second[2]})", exchange=answer.exchange)

    def _witness(self, answer: Answer, identity: identities.Identity, key: tuple[Any, ...],
                 instance: dict[str, Any]) -> dict[str, tuple[Any, str]] | None:
        """The object as the declared witness method answers it (its members' fingerprints), asked on the same
        endpoint with `witness_params` (`@member` is the object's member); None when it cannot be asked."""
        if self._send is None or self._resent >= MAX_RESENT:
            return None
        params = {name: members.first(instance, value[1:]) if isinstance(value, str) and value.startswith("@")
                  else value for name, value in identity.declaration.get("witness_params", {}).items()}
        if "@" in str(params.values()) or any(value is None for value in params.values()):
            return None
        number = members.number(params.get("index"))
        if number is not None:
            params["index"] = int(number)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": identity.declaration.get("witness"),
                           "params": params}).encode()
        self._resent += 1
        self._local.asking = True
        try:
            fresh = self._send("POST", answer.exchange.url, body)
        except Exception:   # the witness did not answer: nothing is decided on it
            return None
        finally:
            self._local.asking = False
        found = answer_of(fresh)
        if found is None:
            return None
        for _, pointer, candidate in instances.instances(found.api, found.schema, found.value,
                                                         (identity.declaration.subject,)):
            if identity.key(candidate, key[1], pointer) == key:
                return identity.compared(candidate)
        return None

    def _ask_again(self, exchange: Exchange, identity: identities.Identity, key: tuple[Any, ...],
                   ) -> dict[str, Any] | None:
        """The object as the same request answers it now; ABSENT when that answer does not show it, None when it
        cannot be asked again."""
        if self._resend is None or self._resent >= MAX_RESENT or not _rereadable(exchange, self._writes):
            return None
        self._resent += 1
        self._local.asking = True
        try:
            fresh = self._resend(exchange)
        except Exception:   # the target did not answer again: nothing is decided on it
            return None
        finally:
            self._local.asking = False
        answer = answer_of(fresh)
        if answer is None:
            # refused now (a 4XX other than 429): the earlier answer that showed the object was another request's
            refused = fresh.status is not None and 400 <= fresh.status < 500 and fresh.status != 429
            return ABSENT if refused else None
        for _, pointer, instance in instances.instances(answer.api, answer.schema, answer.value,
                                                        (identity.declaration.subject,)):
            scope = key[1]
            if identity.key(instance, scope, pointer) == key:
                return instance
        return ABSENT


def witnessed_instance(fingerprints: dict[str, tuple[Any, str]]) -> dict[str, Any]:
    """Fingerprints stand in for an object when two are compared member by member."""
    return {"__fingerprints__": fingerprints}


def watched_rules() -> set[str]:
    """Every rule the watch may charge: its answers land on whichever test's request brought them first, so a
    rule's evidence is split among tests as the run's order of requests has it."""
    from conformance.meaning.declarations import effects

    found: set[str] = set()
    for kind in ("invariant", "identity", "chronology"):
        for declaration in of_kind(kind):
            found.add(declaration.rule)
            found.update(str(rule) for rule in (declaration.get("rules") or {}).values())
            found.update(str(rule) for rule in (declaration.get("by_difference") or {}).values())
    found.update(effect.rule for effect in effects(kind="spelling"))
    return found


def resender(session: Any) -> Callable[[Exchange], Exchange]:
    """Sends an exchange's request again through `session`, its secret headers filled in by the session."""
    def again(exchange: Exchange) -> Exchange:
        headers = {k: v for k, v in exchange.request_headers.items() if v != SECRET_PLACEHOLDER}
        secret = len(headers) != len(exchange.request_headers)
        return session.request(exchange.method, exchange.url, headers=headers, body=exchange.request_body,
                               secret=secret)
    return again


def components(api: str) -> tuple[str, ...]:
    """The schemas of an API that declare an invariant, an identity or a chronology."""
    return _components(api)


def _components(api: str) -> tuple[str, ...]:
    cached = _COMPONENTS.get(api)
    if cached is None:
        cached = _COMPONENTS[api] = tuple(sorted(
            set(invariants.by_component(api)) | set(identities.by_component(api))
            | set(identities.chronologies(api))))
    return cached


_COMPONENTS: dict[str, tuple[str, ...]] = {}


def _rereadable(exchange: Exchange, writes: set[str]) -> bool:
    answer_method = None
    if exchange.request_body and exchange.request_body[:1] == b"{":
        try:
            answer_method = json.loads(exchange.request_body).get("method")
        except (ValueError, AttributeError):
            return False
    return answer_method not in writes


def _differs(identity: identities.Identity, one: dict[str, Any], other: dict[str, Any]) -> bool:
    a, b = (found.get("__fingerprints__") or identity.compared(found) for found in (one, other))
    return any(a[name][0] != b[name][0] for name in set(a) & set(b))


def _newest(answer: Answer, found: list[tuple[str, str, dict[str, Any]]],
            declared: dict[str, tuple[identities.Identity, ...]],
            series_top: Callable[[str, Any], bool] | None = None) -> dict[str, set[int]]:
    """Per identity declaring `except: newest`, the object(s) of this answer with the largest key, when that is the
    latest point of its series the run has seen (`series_top` says so, and remembers it): the documents let "the
    latest data point" change, which is the series' newest, not the last point of a window that ended earlier."""
    out: dict[str, set[int]] = {}
    for component in {component for component, _, _ in found}:
        for identity in declared.get(component, ()):
            if identity.declaration.get("except") == "newest":
                out.setdefault(identity.declaration.id, set())
    for declaration_id in out:
        candidates = [(members.number(members.first(instance, _key_member(declared, declaration_id))), instance)
                      for component, _, instance in found]
        numbers = [value for value, _ in candidates if value is not None]
        if numbers:
            top = max(numbers)
            if series_top is not None and not series_top(declaration_id, top):
                continue   # the newest point of a window that ends before the series' newest is a settled one
            out[declaration_id] = {id(instance) for value, instance in candidates if value == top}
    return out


def _key_member(declared: dict[str, tuple[identities.Identity, ...]], declaration_id: str) -> str:
    for found in declared.values():
        for identity in found:
            if identity.declaration.id == declaration_id:
                return members.paths_of(identity.declaration.get("key"))[0]
    return "timestamp"


def _key_text(key: tuple[Any, ...]) -> str:
    return ", ".join(str(part) for part in key[2:])


def _shown(instance: dict[str, Any], declaration: Declaration) -> str:
    names = [n for n in members.paths_of(declaration.get("when")) or list(instance)[:3]]
    return ", ".join(f"{name} = {str(members.first(instance, name))[:60]}" for name in names)


def _breach(rule_id: str, summary: str, *, expected: str, received: str, exchange: Exchange) -> None:
    """Records a violation in the running test's ledger without stopping the test."""
    rule = load_catalogue()[rule_id]
    if not rule.gating:
        return
    evidence.broke(Violation(rule, summary, expected=expected, received=received, exchange=exchange), exchange)
