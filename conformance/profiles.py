"""How much a run does: example counts for property-based tests, request budgets for walks."""
from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, settings


@dataclass(frozen=True)
class Profile:
    name: str
    examples: int          # hypothesis examples per property-based test
    pages: int             # pages walked per pagination check
    sample: int            # items sampled where a check looks at individual items (containers, metrics)
    #: every variant of a rule (each route of a shared rule, each enum value, both orders...); when false, only
    #: the fewest requests that still decide each rule are sent (the quick profile, for rate-limited targets)
    exhaustive: bool = True
    #: shrink a failing example to a minimal one; against a real target every shrink step is a request
    shrink: bool = False

    @property
    def hypothesis_profile(self) -> str:
        return f"conformance-{self.name}"


PROFILES = {
    "quick": Profile("quick", examples=5, pages=3, sample=2, exhaustive=False),
    "standard": Profile("standard", examples=25, pages=6, sample=5),
    "thorough": Profile("thorough", examples=100, pages=20, sample=20, shrink=True),
}

for _profile in PROFILES.values():
    settings.register_profile(
        _profile.hypothesis_profile,
        max_examples=_profile.examples,
        phases=tuple(phase for phase in Phase if _profile.shrink or phase is not Phase.shrink),
        deadline=None,  # network round trips vary; the suite bounds time with request timeouts instead
        derandomize=False,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                               HealthCheck.filter_too_much, HealthCheck.data_too_large],
        print_blob=True,
    )
