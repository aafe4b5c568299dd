"""The one exception type users see: a problem with the cluster spec, named by its key path."""


class SpecError(ValueError):
    """Bad input. ``path`` is the dotted key path; the message says what is wrong and what would be right.
    ``where`` (file:line:column) goes in front when the error is tied to a spec file."""

    def __init__(self, path, message, where=""):
        self.path = path
        self.message = message
        self.where = where
        text = "%s: %s" % (path, message) if path else message
        super().__init__("%s: %s" % (where, text) if where else text)
