"""JSON merge patch (RFC 7386) as the NVUE API applies a PATCH to a revision, and as ``nv config patch`` folds the
``set`` documents of a YAML file: the emulator's own, written from the RFC and NVIDIA's NVUE API chapter ("a
PATCH merges objects; null unsets"), not from the deploy's client.

RFC 7386, section 2: if the patch is not an object, it replaces the target whole; otherwise the target becomes an
object (a non-object target is dropped) and, for each member of the patch, a null value removes that member from
the target (absent is fine) and any other value is merge-patched into the target's member of that name.
"""


def apply(target, patch):
    """``patch`` merged into ``target``; neither is changed, the result shares nothing with them."""
    if not isinstance(patch, dict):
        return _copy(patch)
    result = {key: _copy(value) for key, value in target.items()} if isinstance(target, dict) else {}
    for name, value in patch.items():
        if value is None:
            result.pop(name, None)
        else:
            result[name] = apply(result.get(name), value)
    return result


def _copy(value):
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value
