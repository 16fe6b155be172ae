"""The requests a declared effect is checked with: where each parameter goes, which values are tried, and the
walks and answers compared. Every walk goes through the run's cache, so a request two checks need is sent once."""
from __future__ import annotations

from collections import Counter
from typing import Any
from collections.abc import Callable

import pytest

from conformance.checks import data as checks, live
from conformance.checks.data_pages import DataWalk, require_walk
from conformance.clients.http import Exchange
from conformance.meaning import instances, members
from conformance.meaning.declarations import BODY, Declaration
from conformance.meaning.members import Normaliser
from conformance.meaning.spellings import Spelling, spelling
from conformance.suite.data.conftest import ALIASES, QUICK_CURRENCIES, ROUTE_CHAIN, DataApi

API = "data"
#: Distinct values a filter is tried with beyond the first, in exhaustive profiles.
MORE_VALUES = 2
#: Enumerations of at most this many values are tried whole as a filter's values.
WHOLE_ENUMERATION = 6
#: Items a page of the walks two ordered requests are compared over: few, so that a short list has later pages.
WALKED_PAGE = 3


class EffectCalls:
    """Requests of the declared effects of the Data API, over the suite's DataApi."""

    def __init__(self, data: DataApi) -> None:
        self.data = data

    # Where a parameter goes -------------------------------------------------------------------------------------

    def _value(self, value: Any) -> Any:
        """A declared value: `sample:<name>` is a discovered identifier (the test skips without it)."""
        if isinstance(value, str) and value.startswith("sample:"):
            return self.data.need(value.removeprefix("sample:"))
        return value

    def _base(self, effect: Declaration) -> tuple[dict[str, Any], dict[str, Any], Any]:
        """(query, path, body) every request of the effect carries: what it requires, and the chain it is on."""
        query = {name: self._value(value) for name, value in effect.get("requires", {}).items()}
        path: dict[str, Any] = {}
        body: Any = None
        template = checks.operation(effect.subject).template
        if "{blockchainId}" in template and effect.name != "blockchainId":
            # the chain by its ID: an alias is on trial in the spelling effects, not here; but two networks are
            # compared on the alias, which names each network's own chain
            letter = effect.get("chain") or ROUTE_CHAIN[effect.subject]
            path["blockchainId"] = ALIASES[letter] if effect.name == "network" and effect.kind == "spelling" \
                else self.data.chain_id(letter)
            if effect.get("chain") and effect.subject == "listUtxos":
                body = {"addresses": self.data.need(f"{letter}_chain_address")}
        return query, path, body

    def _place(self, effect: Declaration, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any]:
        query, path, body = self._base(effect)
        template = checks.operation(effect.subject).template
        for name, value in params.items():
            if name.startswith(BODY):
                body = {**(body or self.data.default_body(effect.subject) or {}), name.removeprefix(BODY): value}
            elif "{" + name + "}" in template:
                path[name] = str(value)
            else:
                query[name] = value
        return query, path, body

    def walk(self, effect: Declaration, params: dict[str, Any], *, refused_ok: bool = False) -> Any:
        """The walk of the route with `params` (FILTER_PAGE items a page unless they name a size), sent once per
        run. A first page refused with a documented 4XX is None when `refused_ok`; otherwise it fails the rule."""
        query, path, body = self._place(effect, params)
        walk = self.data.filtered(effect.subject, query, body=body, **path) if body is not None \
            else self.data.filtered(effect.subject, query, **path)
        if not walk.walk.pages:
            first = walk.walk.exchanges[0]
            checks.unavailable(first)
            if refused_ok and 400 <= (first.status or 0) < 500:
                return None
        require_walk(walk, effect.rule, f"{effect.subject} with {params}")
        return walk

    def base(self, effect: Declaration, params: dict[str, Any] | None = None) -> DataWalk:
        """The walk of the route without the parameter, the values tried are taken from; a route that does not
        serve it leaves the effect undecided (its own rules report that)."""
        query, path, body = self._place(effect, params or {})
        walk = self.data.filtered(effect.subject, query, body=body, **path) if body is not None \
            else self.data.filtered(effect.subject, query, **path)
        if not walk.walk.pages:
            checks.input_of(walk.walk.exchanges[0], f"{effect.subject} without {effect.name}")
        return walk

    def send(self, effect: Declaration, params: dict[str, Any]) -> Exchange:
        query, path, body = self._place(effect, params)
        if body is not None:
            return self.data.call(effect.subject, query, body=body, **path)
        return self.data.call(effect.subject, query, **path)

    def key(self, effect: Declaration) -> Callable[[Any], str]:
        return lambda item: checks.identity(effect.subject, item)

    # Values -----------------------------------------------------------------------------------------------------

    def normaliser(self, effect: Declaration) -> Normaliser:
        prefixes: tuple[str, ...] = ()
        if effect.get("table"):
            prefixes = self.table(effect).prefixes
        return Normaliser(case=effect.get("case", "exact"), prefixes=prefixes)

    def table(self, effect: Declaration) -> Spelling:
        return spelling(API, effect.get("table"), sample=self.data.endpoints.sample, network=self.data.network)

    def _count(self) -> int:
        return 1 + (MORE_VALUES if self.data.exhaustive else 0)

    def filter_values(self, effect: Declaration) -> list[tuple[Any, Any]]:
        """(value, the item it was taken from or None) of each value a filter is tried with."""
        source = effect.get("values", "items")
        if isinstance(source, list):
            return [(value, None) for value in source]
        if source.startswith("sample:"):
            found = self.data.sample(source.removeprefix("sample:")) or \
                self.data.required_query(effect.subject).get(effect.name)
            if found is None:
                pytest.skip(self.data.endpoints.missing(checks_sample(source)))
            return [(found, None)]
        if source.startswith("operation:"):
            body = checks.input_of(self.data.first(source.removeprefix("operation:")), source)
            listed = checks.items_of(source.removeprefix("operation:"), body)
            found = [v for item in listed for v in members.values(item, effect.get("member"))]
            return [(value, None) for value in list(dict.fromkeys(found))[:self._count()]]
        if source == "enum":
            enum, seen = self._enumeration(effect)
            ordered = sorted(enum, key=lambda value: -seen[str(value)])
            # every value of a short enumeration, in every profile: each is a sentence of its own ("returns only
            # validators of that status"), and one value honoured says nothing of the next
            many = len(ordered) if len(ordered) <= WHOLE_ENUMERATION else self._count() if self.data.exhaustive else 1
            return [(value, None) for value in ordered[:many]]
        base = self.base(effect)
        picked: list[tuple[Any, Any]] = []
        for item in base.items:
            for value in members.values(item, effect.get("member")):
                if isinstance(value, (str, int, float)) and not isinstance(value, bool) and \
                        all(value != seen for seen, _ in picked):
                    picked.append((value, item))
        if not picked:
            return []
        chosen = [picked[0]] + ([picked[len(picked) // 2], picked[-1]] if self.data.exhaustive else [])
        out: list[tuple[Any, list[Any]]] = []
        for value, item in chosen:
            if all(part(effect, value) != tried for tried, _ in out):
                out.append((part(effect, value), [item]))
        if effect.get("list") and len(picked) > 1:   # two whole values at once: each one's item is kept
            second = picked[-1]
            out.append((f"{picked[0][0]},{second[0]}", [picked[0][1], second[1]]))
        for extra in ([effect.get("also")] if effect.get("also") else []):
            value = self._value_or_none(extra)
            if value is not None and all(value != tried for tried, _ in out):
                out.append((value, []))
        return out

    def _enumeration(self, effect: Declaration) -> tuple[list[Any], Counter[str]]:
        """The documented values of an enumerated filter, and how many items the route lists unfiltered show each
        (as text)."""
        enum = checks.operation(effect.subject).schema_of(effect.name)["enum"]
        seen = Counter(str(v) for item in self.base(effect).items for v in members.values(item, effect.get("member")))
        return enum, seen

    def _value_or_none(self, value: Any) -> Any:
        if isinstance(value, str) and value.startswith("sample:"):
            return self.data.sample(value.removeprefix("sample:"))
        return value

    def everything(self, effect: Declaration) -> set[str] | None:
        """Every item the route lists without the filter (a walk at the plain page size), or None when that walk
        does not end within the profile's pages."""
        walk = self.base(effect, {"pageSize": checks.plain_page_size(effect.subject)})
        if not walk.ended:
            return None
        return {checks.identity(effect.subject, item) for item in walk.items}

    def unmatched(self, effect: Declaration) -> Any:
        """A value of the filter that no item has: declared, else one tried value turned back to front."""
        if "none" in effect.spec:
            return effect.get("none")
        source = effect.get("values", "items")
        if effect.get("match") == "absent" or isinstance(source, list):
            return None
        if source == "enum":
            # a documented value that no item the route lists unfiltered shows (an item beyond what was read may
            # show it: the check is that every item listed is one the value names, not that none is)
            enum, seen = self._enumeration(effect)
            return next((value for value in enum if not seen[str(value)]), None)
        tried = self.filter_values(effect)
        if not tried:
            return None
        value = tried[0][0]
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return int(value) + 10**9
        return members.unmatched(str(value))

    # Bounds -----------------------------------------------------------------------------------------------------

    def bound_item(self, effect: Declaration) -> tuple[Any, Any] | None:
        """An item of the route's list (in the order the declaration's `near` sends, so that items next to a bound
        come first) and its numeric value, from the middle of the first page."""
        base = self.base(effect, dict(effect.get("near", {})))
        found = [(item, members.number(members.first(item, effect.get("member")))) for item in base.items]
        found = [(item, value) for item, value in found if value is not None]
        if not found:
            return None
        first_page = [pair for pair in found if any(pair[0] is item for item in base.pages()[0][1])] or found
        return first_page[len(first_page) // 2]

    def bound_query(self, effect: Declaration, value: Any, at: Any) -> dict[str, Any] | None:
        """The query of a bound at `value`, narrowed by the opposite bound two steps past the item at `at`, in the
        order of `near`; None when the value lies outside the parameter's own documented range."""
        step = effect.get("step", 1)
        query: dict[str, Any] = {**effect.get("near", {}), effect.name: self._typed(effect.name, effect, value)}
        if effect.get("pair"):
            other = at + 2 * step if effect.get("side") == "lower" else at - 2 * step
            query[effect.get("pair")] = self._typed(effect.get("pair"), effect, other)
        for name, sent in query.items():
            schema = checks.operation(effect.subject).parameters.get(name, {}).get("schema", {})
            number = members.number(sent)
            if number is None:
                continue
            if "minimum" in schema and number < schema["minimum"] or "maximum" in schema and number > schema["maximum"]:
                return None
        return query

    def typed(self, effect: Declaration, name: str, value: Any) -> Any:
        return self._typed(name, effect, value)

    def covered(self, effect: Declaration, walk: DataWalk) -> Callable[[Any], bool] | None:
        """Which values of the member a walk has shown every item of: all of a complete walk; of a walk cut short
        whose items run in one direction of the member, those from its start to its last item (a walk that starts
        at the top of a descending list has passed every larger value); None when neither can be said."""
        if walk.ended:
            return lambda value: True
        found = [v for item in walk.items if (v := members.number(members.first(item, effect.get("member"))))
                 is not None]
        if len(found) < 2:
            return None
        if all(a >= b for a, b in zip(found, found[1:])):
            return lambda value: value > found[-1]
        if all(a <= b for a, b in zip(found, found[1:])):
            return lambda value: value < found[-1]
        return None

    def decided(self, effect: Declaration, walk: DataWalk, at: Any) -> bool:
        covered = self.covered(effect, walk)
        return covered is not None and covered(at)

    def reached(self, effect: Declaration, walk: DataWalk) -> Callable[[Any], bool] | None:
        """Which items a walk covered, by their member (see `covered`)."""
        covered = self.covered(effect, walk)
        if covered is None:
            return None
        return lambda item: (v := members.number(members.first(item, effect.get("member")))) is not None and \
            covered(v) or walk.ended

    def alone(self, effect: Declaration) -> list[tuple[DataWalk, list[Any], dict[str, Any], Any,
                                                      Callable[[Any], bool]]]:
        """For each place the bound is tried at, sent alone: (its walk, the items of the route without it, the query,
        the bound, the values the walk covered). On the fifth item of the route's own list, so that what lies within
        it on the route's first page is a few items; and on the item of that list farthest from the end left open,
        so that everything the route lists lies within it: an end that is not left open but closed some way off
        (a window of a few blocks, a day) cuts off what a bound near the open end never reaches. Both lists are read
        in pages of the plain size, not the filters' small ones: an end closed some way off shows only where the
        lists reach past it, and completeness is judged as far as a standard run reaches."""
        size = {"pageSize": checks.plain_page_size(effect.subject)}
        base = self.base(effect, size)
        found = [v for item in base.items if (v := members.number(members.first(item, effect.get("member"))))
                 is not None]
        if len(found) < 6:
            return []
        farthest = min(found) if effect.get("side") == "lower" else max(found)
        tried = []
        for at in dict.fromkeys((found[4], farthest)):
            sent = {effect.name: self._typed(effect.name, effect, at)}
            walk = self.walk(effect, {**sent, **size})
            covered = self.covered(effect, walk)
            if covered is not None:
                tried.append((walk, base.items, sent, at, covered))
        return tried

    def median(self, effect: Declaration) -> Any:
        """The middle value of the member on the first page of the route's own list (no `near` order): a bound
        there leaves items on both sides, so a later page that forgets it shows one beyond it."""
        base = self.base(effect)
        found = sorted(v for item in base.items if (v := members.number(members.first(item, effect.get("member"))))
                       is not None)
        return found[len(found) // 2] if found else None

    def _typed(self, name: str, effect: Declaration, value: Any) -> Any:
        if isinstance(value, float):   # a bound a step from a value: not 3.0300000000000002
            value = round(value, 9)
        schema = checks.operation(effect.subject).parameters.get(name, {}).get("schema", {})
        if schema.get("type") == "integer" or isinstance(value, float) and value.is_integer():
            return int(value)
        if schema.get("type") == "string":
            return str(int(value)) if float(value).is_integer() else str(value)
        return value

    # Two requests that answer alike -----------------------------------------------------------------------------

    def agree(self, effect: Declaration, first: dict[str, Any], second: dict[str, Any], *,
              project: bool = False) -> live.Agreement:
        """Sends the two requests (the second between two reads of the first on a live target) and compares what
        they must share: the items in order on a list route, the whole answer elsewhere; with `project`, outside the
        objects of the declared components; values any spelling table names read as the one they stand for."""
        operation = checks.operation(effect.subject)
        components = tuple(effect.get("components", ())) if project else ()
        canon = self.table(effect).canonical if effect.get("table") else (lambda value: value)

        def value(exchange: Exchange) -> Any:
            checks.unavailable(exchange)
            body = checks.answered(exchange)
            if body is None:
                return ("status", exchange.status)
            body = instances.documented(API, operation.response_schema, body)
            if components:
                body = instances.without(API, operation.response_schema, body, components)
            if operation.list_member and not components and effect.get("compare") != "body":
                return [checks.identity(effect.subject, item) for item in checks.items_of(effect.subject, body)]
            if isinstance(body, dict):   # a page token is bound to the query that made it
                body = {name: member for name, member in body.items() if name != "nextPageToken"}
            return respelled(members.canonical(body), canon)
        if operation.list_member and not components and effect.get("compare") != "body":
            return self._walks_agree(effect, first, second)
        return live.agree_while_live(lambda: self.send(effect, first), lambda: self.send(effect, second), value)

    def _walks_agree(self, effect: Declaration, first: dict[str, Any], second: dict[str, Any]) -> live.Agreement:
        """Two requests of a list route compared on every page of their walks, not on the first page alone: a
        default honoured on the first page and lost on the next is lost. Items in order where the route's order is
        documented (it takes sortOrder); else the whole list as a set, read at a page size that holds all of it
        when it can: two first pages of a longer list in no documented order may rightly hold other items, so
        there only how full their pages are is compared."""
        operation = checks.operation(effect.subject)
        ordered = "sortOrder" in operation.parameters
        # in order, at a few items a page, so that the walks have later pages to compare even where the target
        # holds few items; in no order, at a page that holds all of them
        size = {} if "pageSize" not in operation.parameters else {"pageSize": WALKED_PAGE} if ordered else \
            {"pageSize": checks.plain_page_size(effect.subject)}

        def sender(params: dict[str, Any]) -> Callable[[], Any]:
            def send() -> DataWalk:
                query, path, body = self._place(effect, {**size, **params})
                return self.data.walk(effect.subject, query, body=body, **path) if body is not None \
                    else self.data.walk(effect.subject, query, **path)
            return send

        def value(walk: DataWalk) -> Any:
            first_page = walk.walk.exchanges[0]
            checks.unavailable(first_page)
            if not walk.walk.pages:
                return ("status", first_page.status)
            items = [checks.identity(effect.subject, item) for item in walk.items]
            if ordered:
                return items
            if not walk.ended:
                # Longer than the walk, in no documented order: two walks may rightly hold other items, but each
                # page of either is as full as the other's (an empty answer to one spelling is not excused).
                return ("pages of a longer list", [len(items) for _, items, _ in walk.pages()])
            return sorted(items)
        return live.agree_while_live(sender(first), sender(second), value, timeline=ordered)

    def spellings(self, effect: Declaration) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The two requests of each pair of spellings to compare, on the route's own identifiers."""
        table = self.table(effect)
        name = effect.name
        if name in ("network", "chainId"):   # fuji and testnet; an EVM chain's two IDs
            return [({name: group[0]}, {name: group[1]}) for group in table.groups if len(group) > 1]
        if name == "blockchainId":
            pairs = []
            for chain_id, alias in table.groups:
                letter = alias[0]
                if letter not in self.letters(effect):
                    continue
                extra: dict[str, Any] = {}
                if effect.subject == "listUtxos":
                    owner = self.data.sample(f"{letter}_chain_address")
                    if owner is None:
                        continue
                    extra[BODY + "addresses"] = owner
                pairs.append(({name: chain_id, **extra}, {name: alias, **extra}))
            return pairs
        value = self._value(effect.get("values"))
        bare = table.canonical(value)
        letter = ROUTE_CHAIN.get(effect.subject, "p").upper()
        return [({name: bare}, {name: other}) for other in table.others(bare, prefix=f"{letter}-")]

    def letters(self, effect: Declaration) -> list[str]:
        """The chains a primary network route's spelling is compared on: its own, and (exhaustive profiles, or a
        route whose requests carry no address) the others the route can be asked about."""
        own = effect.get("chain") or ROUTE_CHAIN.get(effect.subject, "p")
        if effect.subject == "listVerticesByHeight":
            return ["x"]
        return [own] + [letter for letter in "pxc" if letter != own]

    # Labels and projections ---------------------------------------------------------------------------------------

    def label_values(self, effect: Declaration) -> list[Any]:
        name = effect.name
        if name == "network":   # the run's network, and a second one (refused where its identifiers are unknown)
            others = [v for v in checks.enum(effect.subject, "network") if v != self.data.network]
            return [self.data.network] + (others if self.data.exhaustive else others[-1:])
        if name == "chainId":
            found = [self.data.evm_chain] + ([self.data.sample("evm_blockchain_id")] if self.data.exhaustive else [])
            return [value for value in dict.fromkeys(found) if value]
        if name == "address":
            return [self.data.address_for(effect.subject)]
        enum = checks.operation(effect.subject).schema_of(name).get("enum", [])
        return enum if self.data.exhaustive else [value for value in QUICK_CURRENCIES if value in enum][:1]

    def labels(self, effect: Declaration, exchange: Exchange) -> list[tuple[str, Any]]:
        components = effect.get("component")
        wanted = tuple(components) if isinstance(components, list) else (components,)
        schema = checks.operation(effect.subject).response_schema
        return [(pointer, members.first(found, effect.get("member")))
                for _, pointer, found in instances.instances(API, schema, checks.answered(exchange), wanted)]

    def label_normaliser(self, effect: Declaration) -> Callable[[Any], Any]:
        case = Normaliser(case=effect.get("case", "exact"))
        if effect.get("table"):
            table = self.table(effect)
            return lambda value: case(table.canonical(value))
        return case

    def projected_pairs(self, effect: Declaration, value: Any) -> tuple[Exchange, list[tuple[str, Any, Any]]]:
        """(the first answer with `value`, [(where, the member the projection changes without it, and with it)]):
        each object of the declared components at one place of both answers, on every page of both walks of a list
        route (a few items a page, so that there are later pages), the value each names (a Price's value). A
        balance's value is left out: it moves with a live balance between the two requests."""
        operation = checks.operation(effect.subject)
        components = tuple(effect.get("components", ()))
        if operation.list_member and "pageSize" in operation.parameters:
            walks = [self.walk(effect, {"pageSize": WALKED_PAGE, **params}) for params in ({}, {effect.name: value})]
            pages = [[exchange for exchange, _, _ in walk.pages()] for walk in walks]
        else:
            pages = [[self.send(effect, {})], [self.send(effect, {effect.name: value})]]
        pairs: list[tuple[str, Any, Any]] = []
        for number, (before, after) in enumerate(zip(*pages)):
            bodies = [checks.answered(exchange) for exchange in (before, after)]
            if any(body is None for body in bodies):
                break
            found = [{pointer: instance for _, pointer, instance in
                      instances.instances(API, operation.response_schema, body, components)} for body in bodies]
            pairs += [(f"page {number + 1} {pointer}", found[0][pointer].get("value"), instance.get("value"))
                      for pointer, instance in found[1].items()
                      if pointer in found[0] and not pointer.endswith("/balanceValue")]
        return pages[1][0], pairs

    def projection_value(self, effect: Declaration) -> Any:
        schema = checks.operation(effect.subject).schema_of(effect.name)
        others = [value for value in schema.get("enum", []) if value != schema.get("default")]
        return ([value for value in QUICK_CURRENCIES if value in others] or others)[0]

    # Orders and moments -------------------------------------------------------------------------------------------

    def order_queries(self, effect: Declaration) -> list[tuple[dict[str, Any], bool]]:
        requires = {name: self._value(value) for name, value in effect.get("requires", {}).items()}
        if effect.get("value") is None:   # the route's own order, whatever the parameter says
            return [(requires, effect.get("direction") == "desc")]
        if effect.name == "sortOrder":
            return [({**requires, "sortOrder": effect.get("value")}, effect.get("value") == "desc")]
        orders = ("desc", "asc") if self.data.exhaustive else ("desc",)
        return [({**requires, effect.name: effect.get("value"), "sortOrder": order}, order == "desc")
                for order in orders]

    def order_key(self, effect: Declaration) -> Callable[[Any], Any]:
        return lambda item: members.first(item, effect.get("member"))

    def past_moment(self, effect: Declaration) -> Any:
        """A past block of the EVM chain: one a transfer of the known ERC-20 token was made in."""
        if self.data.sample("erc20_contract") is None:
            return None
        body = checks.answered(self.data.first("listTokenTransfers"))
        blocks = sorted(b for item in checks.items_of("listTokenTransfers", body)
                        if isinstance(b := members.number(members.first(item, "blockNumber")), int))
        return str(blocks[len(blocks) // 2]) if blocks else None


def part(effect: Declaration, value: Any) -> Any:
    """The value a `contains` filter is tried with: an inner part of a value an item has."""
    if effect.get("match") == "contains" and isinstance(value, str) and len(value) > 10:
        core = value.split("-", 1)[-1]
        return core[2:-3]
    return value


def respelled(value: Any, canon: Callable[[Any], Any]) -> Any:
    """`value` with every string read through a spelling table."""
    if isinstance(value, dict):
        return {key: respelled(member, canon) for key, member in value.items()}
    if isinstance(value, list):
        return [respelled(member, canon) for member in value]
    return canon(value) if isinstance(value, str) else value


def checks_sample(source: str) -> str:
    from conformance.suite.data.conftest import SAMPLES

    return SAMPLES[source.removeprefix("sample:")]

