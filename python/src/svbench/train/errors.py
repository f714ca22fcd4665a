"""The one error of `svbench.train`'s configuration, in a module of its own
so that modules `config` reads from can raise it too."""


class ConfigError(ValueError):
    """A training config that cannot be run as written."""


__all__ = ["ConfigError"]
