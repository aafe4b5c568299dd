"""Keys of a spec file that configure the inventory plugin (constructed and cache options), not the cluster."""
PLUGIN_KEYS = ("compose", "groups", "keyed_groups", "strict", "leading_separator", "use_extra_vars", "cache",
               "cache_plugin", "cache_timeout", "cache_connection", "cache_prefix")
