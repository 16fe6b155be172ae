"""The reference's Metrics API answers as 3-metrics-api.md says, and each metrics fault changes what it answers."""
from __future__ import annotations

import calendar
import uuid
from datetime import datetime, UTC
from typing import Any

import pytest
from werkzeug.test import Client

from conformance.reference.faults import all_faults, fault_named
from conformance.reference.metrics_api import METRICS
from conformance.reference.server import ReferenceApp
from conformance.reference.world import World
from conformance.rules import load_catalogue

SEED = 0
EVM = str(World(SEED).evm_chain_id)
V2 = f"/v2/chains/{EVM}/metrics"
TPS = f"/v1/avg_tps/{EVM}"


def client(*faults: str, seed: int = SEED) -> Client:
    return Client(ReferenceApp(World(seed), [fault_named(name) for name in faults]))


@pytest.fixture(scope="module")
def api() -> Client:
    return client()


def get(api: Client, path: str, **headers: str) -> tuple[int, Any]:
    reply = api.get(path, headers=headers)
    return reply.status_code, reply.get_json(silent=True)


def walk(api: Client, path: str) -> list[list[dict[str, Any]]]:
    """Every page of a query, following nextPageToken."""
    pages, token = [], None
    while True:
        status, body = get(api, path + (f"&pageToken={token}" if token else ""))
        assert status == 200, body
        pages.append(body["results"])
        token = body.get("nextPageToken")
        if token is None:
            return pages


def is_aligned(interval: str, timestamp: int) -> bool:
    moment = datetime.fromtimestamp(timestamp, tz=UTC)
    midnight = timestamp % 86400 == 0
    return {"hour": timestamp % 3600 == 0, "day": midnight, "week": midnight and moment.weekday() == 0,
            "month": midnight and moment.day == 1}[interval]


# (a) the reference follows the document ---------------------------------------------------------------------

@pytest.mark.parametrize("metric", list(METRICS))
@pytest.mark.parametrize("interval", ["hour", "day", "week", "month"])
def test_every_metric_is_served_exactly_at_its_documented_intervals(api: Client, metric: str, interval: str) -> None:
    status, body = get(api, f"{V2}/{metric}?timeInterval={interval}&pageSize=5")
    if interval in METRICS[metric]:
        assert status == 200 and len(body["results"]) == 5 and isinstance(body["nextPageToken"], str)
        assert all(is_aligned(interval, p["timestamp"]) and p["value"] >= 0 for p in body["results"])
        assert all(isinstance(p["timestamp"], int) and isinstance(p["value"], (int, float)) for p in body["results"])
    else:
        assert status == 400 and body["error"] == "Bad Request" and body["statusCode"] == 400
        assert isinstance(body["message"], list) and all(isinstance(m, str) for m in body["message"])


@pytest.mark.parametrize("chain", ["total", "mainnet", "testnet", EVM])
def test_documented_chain_ids_are_served(api: Client, chain: str) -> None:
    assert get(api, f"/v2/chains/{chain}/metrics/txCount")[0] == 200
    assert get(api, f"/v1/avg_tps/{chain}")[0] == 200


def test_unsupported_chain_is_not_found(api: Client) -> None:
    assert get(api, "/v2/chains/1/metrics/txCount") == (404, {"message": ["chain 1 is not supported"],
                                                              "statusCode": 404, "error": "Not Found"})


@pytest.mark.parametrize(("query", "status"), [
    ("pageSize=1", 200), ("pageSize=2160", 200), ("pageSize=0", 400), ("pageSize=2161", 400), ("pageSize=1.5", 400),
    ("pageSize=ten", 400), ("startTimestamp=0", 200), ("startTimestamp=-1", 400), ("endTimestamp=-1", 400),
    ("endTimestamp=0", 200), ("timeInterval=year", 400), ("pageToken=not-a-token", 400),
    (f"pageToken={uuid.UUID(int=7, version=4)}", 400),
])
def test_parameter_bounds(api: Client, query: str, status: int) -> None:
    code, body = get(api, f"{V2}/txCount?{query}")
    assert code == status, body
    if status == 400:
        assert body["error"] == "Bad Request" and body["message"]


def test_unknown_metric_and_mistyped_url(api: Client) -> None:
    assert get(api, f"{V2}/txcount")[0] == 400
    status, body = get(api, f"/v2/chains/{EVM}/metricz/txCount")
    assert status == 404 and body["error"] == "Not Found" and isinstance(body["message"], list)


def test_default_page_is_100_newest_first_by_day(api: Client) -> None:
    _, body = get(api, f"{V2}/txCount")
    stamps = [p["timestamp"] for p in body["results"]]
    assert len(stamps) == 100 and stamps == sorted(stamps, reverse=True) and all(s % 86400 == 0 for s in stamps)
    assert stamps[0] <= World(SEED).clock.now < stamps[0] + 86400


def test_pages_together_equal_one_large_page_and_walks_end(api: Client) -> None:
    small = walk(api, f"{V2}/gasUsed?timeInterval=week&pageSize=7")
    large = walk(api, f"{V2}/gasUsed?timeInterval=week&pageSize=2160")
    assert len(large) == 1 and sum(small, []) == large[0] and all(len(page) <= 7 for page in small)
    hourly = walk(api, f"{V2}/txCount?timeInterval=hour&pageSize=2160")
    stamps = [p["timestamp"] for page in hourly for p in page]
    assert len(hourly) > 3 and len(stamps) == len(set(stamps))


def test_timestamps_filter_inclusively(api: Client) -> None:
    start, end = calendar.timegm((2026, 1, 5, 0, 0, 0)), calendar.timegm((2026, 2, 2, 0, 0, 0))
    _, body = get(api, f"{V2}/activeSenders?timeInterval=week&startTimestamp={start}&endTimestamp={end}")
    assert [p["timestamp"] for p in body["results"]] == list(range(end, start - 1, -7 * 86400))
    assert "nextPageToken" not in body
    _, body = get(api, f"{V2}/txCount?timeInterval=month&startTimestamp={start + 1}&endTimestamp={end - 1}")
    assert [p["timestamp"] for p in body["results"]] == [calendar.timegm((2026, 2, 1, 0, 0, 0))]


def test_cumulative_tx_count_is_the_rolling_sum_of_daily_counts(api: Client) -> None:
    _, daily = get(api, f"{V2}/txCount?pageSize=2160")
    _, cumulative = get(api, f"{V2}/cumulativeTxCount?pageSize=2160")
    counts = [p["value"] for p in daily["results"]][::-1]
    sums = [p["value"] for p in cumulative["results"]][::-1]
    assert sums == [sum(counts[: i + 1]) for i in range(len(counts))]
    for metric in ("cumulativeAddresses", "cumulativeContracts", "cumulativeDeployers"):
        values = [p["value"] for p in get(api, f"{V2}/{metric}?pageSize=2160")[1]["results"]]
        assert values == sorted(values, reverse=True)


def test_page_token_is_a_uuid_bound_to_its_query(api: Client) -> None:
    _, body = get(api, f"{V2}/txCount?timeInterval=hour&pageSize=2")
    token = body["nextPageToken"]
    assert str(uuid.UUID(token)) == token
    assert get(api, f"{V2}/txCount?timeInterval=hour&pageToken={token}")[0] == 200
    assert get(api, f"{V2}/txCount?pageToken={token}")[0] == 200          # parameters may be left out
    assert get(api, f"{V2}/txCount?timeInterval=day&pageToken={token}")[0] == 400
    assert get(api, f"{V2}/gasUsed?pageToken={token}")[0] == 400
    assert get(api, f"{TPS}?pageToken={token}")[0] == 400


def test_page_token_expires_after_24_hours() -> None:
    app = ReferenceApp(World(SEED))
    api = Client(app)
    token = get(api, f"{V2}/txCount?pageSize=2")[1]["nextPageToken"]
    app.world.clock.tick(24 * 3600 + 1)
    assert get(api, f"{V2}/txCount?pageToken={token}")[0] == 400


def test_average_tps_route(api: Client) -> None:
    status, body = get(api, TPS)
    assert status == 200 and body["status"] == 200 and isinstance(body["lastRun"], int)
    assert len(body["results"]) == 100 and all(p["timestamp"] % 3600 == 0 for p in body["results"])
    pages = walk(api, TPS + "?")
    stamps = [p["timestamp"] for page in pages for p in page]
    assert len(pages) > 1 and len(stamps) == len(set(stamps))
    assert get(api, "/v1/avg_tps/nochain")[0] == 404


def test_no_authentication_and_json_content_type(api: Client) -> None:
    plain = api.get(f"{V2}/txCount")
    typed = api.get(f"{V2}/txCount", headers={"Content-Type": "application/json"})
    assert plain.status_code == typed.status_code == 200 and plain.data == typed.data
    assert plain.headers["Content-Type"] == "application/json"


def test_live_world_grows_without_repeating_points() -> None:
    world = World(SEED)
    api = Client(ReferenceApp(world))
    first = get(api, f"{V2}/txCount?timeInterval=hour&pageSize=3")[1]
    for _ in range(1800):                                       # one simulated hour
        world.advance()
    later = get(api, f"{V2}/txCount?timeInterval=hour&pageSize=3&pageToken={first['nextPageToken']}")[1]
    assert later["results"][0]["timestamp"] == first["results"][-1]["timestamp"] - 3600
    newest = get(api, f"{V2}/txCount?timeInterval=hour&pageSize=3")[1]["results"]
    assert newest[0]["timestamp"] == first["results"][0]["timestamp"] + 3600
    assert newest[1]["value"] > first["results"][0]["value"]     # the then-latest hour kept filling


# (b) every fault changes an answer --------------------------------------------------------------------------

#: A targeted request per fault: a path, or a list of paths where "{token}" is the previous nextPageToken;
#: a (path, headers) pair sends headers.
PROBES: dict[str, Any] = {
    "SuccessBodyIsPythonRepr": f"{V2}/txCount?pageSize=2",
    "SuccessContentTypeHtml": TPS,
    "ErrorBodyIsJsonString": f"{V2}/txCount?pageSize=0",
    "ErrorContentTypePlain": f"{V2}/txCount?pageSize=0",
    "ResultsMemberNamedData": f"{V2}/txCount?pageSize=2",
    "ValueAsDecimalString": f"{V2}/txCount?pageSize=2",
    "TimestampAsString": f"{V2}/txCount?pageSize=2",
    "NextPageTokenIsInteger": f"{V2}/txCount?pageSize=2",
    "CumulativeTxCountNotCumulative": f"{V2}/cumulativeTxCount?pageSize=3",
    "LatestCountIsMinusOne": f"{V2}/activeSenders?timeInterval=hour",
    "PageSizeOneRefused": f"{V2}/txCount?pageSize=1",
    "PageSizeMaxRefused": f"{V2}/txCount?pageSize=2160",
    "PageSizeZeroMeansDefault": f"{V2}/txCount?pageSize=0",
    "PageSizeAboveMaxClamped": f"{V2}/txCount?pageSize=2161",
    "PageSizeParsedLeniently": f"{V2}/txCount?pageSize=1.5",
    "StartTimestampZeroRefused": f"{V2}/txCount?startTimestamp=0",
    "NegativeStartTimestampIgnored": f"{V2}/txCount?startTimestamp=-1",
    "NegativeEndTimestampIgnored": f"{V2}/txCount?endTimestamp=-1",
    "DefaultPageSizeIsMaximum": f"{V2}/txCount",
    "DefaultPageSizeSmaller": f"{V2}/txCount",
    "UnknownMetricServedAsTxCount": f"{V2}/blockCount",
    "UnknownIntervalServedAsDay": f"{V2}/txCount?timeInterval=year",
    "ActiveAddressesMonthRefused": f"{V2}/activeAddresses?timeInterval=month",
    "ActiveSendersHourRefused": f"{V2}/activeSenders?timeInterval=hour",
    "GasUsedWeekRefused": f"{V2}/gasUsed?timeInterval=week",
    "TxCountHourRefused": f"{V2}/txCount?timeInterval=hour",
    "CumulativeTxCountServedHourly": f"{V2}/cumulativeTxCount?timeInterval=hour",
    "CumulativeAddressesServedWeekly": f"{V2}/cumulativeAddresses?timeInterval=week",
    "CumulativeContractsServedMonthly": f"{V2}/cumulativeContracts?timeInterval=month",
    "CumulativeDeployersServedHourly": f"{V2}/cumulativeDeployers?timeInterval=hour",
    "ContractsServedAtEveryInterval": f"{V2}/contracts?timeInterval=week",
    "DeployersServedAtEveryInterval": f"{V2}/deployers?timeInterval=month",
    "AvgGpsServedWeekly": f"{V2}/avgGps?timeInterval=week",
    "MaxGpsServedMonthly": f"{V2}/maxGps?timeInterval=month",
    "AvgTpsServedHourly": f"{V2}/avgTps?timeInterval=hour",
    "MaxTpsDayRefused": f"{V2}/maxTps?timeInterval=day",
    "AvgGasPriceServedWeekly": f"{V2}/avgGasPrice?timeInterval=week",
    "MaxGasPriceServedMonthly": f"{V2}/maxGasPrice?timeInterval=month",
    "FeesPaidServedAtEveryInterval": f"{V2}/feesPaid?timeInterval=hour",
    "HourTimestampsOnTheHalfHour": f"{V2}/txCount?timeInterval=hour&pageSize=2",
    "DayTimestampsAtLocalMidnight": f"{V2}/txCount?timeInterval=day&pageSize=2",
    "WeeksStartOnSunday": f"{V2}/txCount?timeInterval=week&pageSize=2",
    "MonthTimestampsAtLocalMidnight": f"{V2}/txCount?timeInterval=month&pageSize=2",
    "TimestampsInMilliseconds": f"{V2}/txCount?pageSize=2",
    "StartTimestampIgnored": f"{V2}/txCount?startTimestamp=1780000000&endTimestamp=1780200000",
    "StartTimestampFlooredToItsPeriod": f"{V2}/txCount?startTimestamp=1780000001&endTimestamp=1780200000",
    "EndTimestampIgnored": f"{V2}/txCount?endTimestamp=1780000000&pageSize=2",
    "LatestPointDuplicated": f"{V2}/txCount?pageSize=3",
    "TotalChainRefused": "/v2/chains/total/metrics/txCount?pageSize=1",
    "MainnetChainRefused": "/v2/chains/mainnet/metrics/txCount?pageSize=1",
    "TestnetChainRefused": "/v2/chains/testnet/metrics/txCount?pageSize=1",
    "EvmChainIdRefused": f"{V2}/txCount?pageSize=1",
    "NextPageTokenNeverIssued": f"{V2}/txCount?pageSize=2",
    "NextPageTokenOnLastPage": f"{V2}/txCount?startTimestamp=1780000000&endTimestamp=1780200000",
    "LastPageTokenEmpty": f"{V2}/txCount?startTimestamp=1780000000&endTimestamp=1780200000",
    "PageAfterTokenSkipsAPoint": [f"{V2}/txCount?pageSize=2", f"{V2}/txCount?pageSize=2&pageToken={{token}}"],
    "PageTokenCursorInclusive": [f"{V2}/txCount?pageSize=2", f"{V2}/txCount?pageSize=2&pageToken={{token}}"],
    "PageOverfullByOne": f"{V2}/txCount?pageSize=2",
    "UnknownPageTokenIgnored": f"{V2}/txCount?pageToken=3f2b8c1e-0000-4000-8000-000000000000",
    "ErrorMessageIsString": f"{V2}/txCount?pageSize=0",
    "ErrorTypeIsNull": f"{V2}/txCount?pageSize=0",
    "StatusCodeIsString": f"{V2}/txCount?pageSize=0",
    "InvalidParametersAre422": f"{V2}/txCount?pageSize=0",
    "BadRequestPhraseIsValidationError": f"{V2}/txCount?pageSize=0",
    "MistypedUrlIs400": f"/v2/chains/{EVM}/metric/txCount",
    "NotFoundPhraseIsConstant": "/v2/chains/999999/metrics/txCount",
    "AvgTpsRefusesEvmChainId": TPS,
    "AvgTpsResultsKeyedByTimestamp": TPS,
    "AvgTpsValueAsFixedString": TPS,
    "AvgTpsTimestampAsIsoString": TPS,
    "AvgTpsStatusIsText": TPS,
    "AvgTpsLastRunIsFractional": TPS,
    "AvgTpsNextPageTokenIsInteger": TPS,
    "AvgTpsPageTokenRefused": [TPS, f"{TPS}?pageToken={{token}}"],
    "AvgTpsTimestampsMidHour": TPS,
    "ApiKeyRequired": f"{V2}/txCount?pageSize=1",
    "JsonContentTypeRefusedOnGet": (f"{V2}/txCount?pageSize=1", {"Content-Type": "application/json"}),
    # The relations of issue-free answers: each probe reads what the fault changes.
    "ActiveSendersCountTransactions": f"{V2}/activeSenders?timeInterval=day&pageSize=3",
    "AvgTpsLastRunIsTheDailyRun": TPS,
    "AvgTpsPageTokenIgnored": [TPS, TPS + "?pageToken={token}"],
    "CumulativeAddressesCountAppearances": f"{V2}/cumulativeAddresses?timeInterval=day&pageSize=3",
    "CumulativeContractsToTheNextDay": f"{V2}/cumulativeContracts?timeInterval=day&pageSize=3",
    "CumulativeDeployersCountDeployments": f"{V2}/cumulativeDeployers?timeInterval=day&pageSize=3",
    "CumulativeTxCountToTheTimestamp": f"{V2}/cumulativeTxCount?timeInterval=day&pageSize=3",
    "DeployersCountBothEnds": f"{V2}/deployers?timeInterval=day&pageSize=3",
    "EndTimestampZeroIgnored": f"{V2}/txCount?endTimestamp=0",
    "EndTimestampZeroRefused": f"{V2}/txCount?endTimestamp=0",
    "HourBucketsOneHourLate": f"{V2}/txCount?timeInterval=hour&pageSize=3",
    "HourlyDistinctCountsCoverPartOfTheHour": f"{V2}/activeAddresses?timeInterval=hour&pageSize=3",
    "MaxGasPriceIsTheMinimum": f"{V2}/maxGasPrice?timeInterval=day&pageSize=3",
    "MonthsAreThirtyDays": f"{V2}/txCount?timeInterval=month&pageSize=3",
    "PastWindowServesLatestValues": f"{V2}/txCount?timeInterval=day&startTimestamp=1779926400&endTimestamp=1780358400",
    "ShortTimestampsRefused": f"{V2}/txCount?startTimestamp=1",
    "WeekAndMonthDistinctCountsAverageTheirDays": f"{V2}/activeAddresses?timeInterval=week&pageSize=3",
    "WeekCountsAverageTheirDays": f"{V2}/txCount?timeInterval=week&pageSize=3",
    "WindowForgottenAfterFirstPage": [
        f"{V2}/txCount?timeInterval=hour&startTimestamp=1779998400&endTimestamp=1780020000&pageSize=2",
        f"{V2}/txCount?timeInterval=hour&startTimestamp=1779998400&endTimestamp=1780020000&pageSize=2"
        "&pageToken={token}"],
    "WindowLosesItsLastPeriod": f"{V2}/txCount?timeInterval=day&startTimestamp=1779926400&endTimestamp=1780358400",
}


def metrics_faults() -> list[str]:
    return [cls.__name__ for cls in all_faults() if cls.__module__ == "conformance.reference.faults.metrics"]


def answers(api: Client, probe: Any) -> list[tuple[int, str, bytes]]:
    headers: dict[str, str] = {}
    if isinstance(probe, tuple):
        probe, headers = probe
    seen, token = [], ""
    for path in [probe] if isinstance(probe, str) else probe:
        reply = api.get(path.replace("{token}", str(token)), headers=headers)
        seen.append((reply.status_code, reply.headers.get("Content-Type", ""), reply.data))
        body = reply.get_json(silent=True)
        token = body.get("nextPageToken", "") if isinstance(body, dict) else ""
    return seen


@pytest.mark.parametrize("name", sorted(PROBES))
def test_fault_changes_the_answer(api: Client, name: str) -> None:
    probe = PROBES[name]
    assert answers(client(name), probe) != answers(client(), probe)


def test_every_metrics_fault_has_a_probe_and_names_catalogued_rules() -> None:
    catalogue = load_catalogue()
    assert sorted(metrics_faults()) == sorted(PROBES)
    for name in metrics_faults():
        cls = type(fault_named(name))
        assert cls.summary(), name
        assert not set(cls.breaks) & set(cls.also), name
        for rule_id in cls.breaks + cls.also:
            assert rule_id in catalogue and rule_id.startswith("MET-"), (name, rule_id)
            assert catalogue[rule_id].testable, (name, rule_id)


def test_every_testable_required_rule_has_a_fault() -> None:
    broken = {rule for cls in all_faults() for rule in cls.breaks}
    required = [r.id for r in load_catalogue() if r.id.startswith("MET-") and r.gating and r.testable]
    assert [rule for rule in required if rule not in broken] == []


def test_the_world_is_deterministic_from_its_seed() -> None:
    assert client(seed=3).get(f"{V2}/maxGps").data == client(seed=3).get(f"{V2}/maxGps").data
