"""Plans and rendered docs shared by the test_docs_* modules (each plan built once per session)."""
import functools

from conftest import load_example
from gpufabric.docs.cabling import plan_cables
from gpufabric.docs.settings import settings_for
from gpufabric.plan import build_plan


@functools.lru_cache(maxsize=None)
def plan_of(name):
    return build_plan(load_example(name))


@functools.lru_cache(maxsize=None)
def cables_of(name):
    plan = plan_of(name)
    return plan_cables(plan, settings_for(plan))
