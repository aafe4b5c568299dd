"""The virtual twin's SONiC management plane: CONFIG_DB in redis and SONiC's config commands over it."""
