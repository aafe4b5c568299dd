"""The one exception type users see: a problem with the cluster spec, named by its key path."""


class SpecError(ValueError):
    """Bad input. ``path`` is the dotted key path; the message says what is wrong and what would be right."""

    def __init__(self, path, message):
        self.path = path
        self.message = message
        super().__init__("%s: %s" % (path, message) if path else message)
