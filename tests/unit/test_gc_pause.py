"""Planning and rendering pause the cyclic garbage collector and give it back as they found it."""


def test_planning_leaves_the_garbage_collector_as_it_found_it(lab_spec):
    import gc
    from gpufabric.plan import build_plan
    assert gc.isenabled()
    build_plan(lab_spec)
    assert gc.isenabled()
    gc.disable()
    try:
        build_plan(lab_spec)
        assert not gc.isenabled()
    finally:
        gc.enable()
