"""The one exception hierarchy of olmcat.

Library code raises these; only the CLI turns them into exit codes. Every message is one line that
names the file, package or bundle concerned and says what is wrong (and, where useful, what to do).
"""

from __future__ import annotations


class OlmcatError(Exception):
    """Base class of every error olmcat reports to a user."""


class InputError(OlmcatError):
    """The input catalog (file, directory, archive) cannot be read or is malformed."""


class OutputError(OlmcatError):
    """The output location cannot be used (exists and is not empty, not writable, ...)."""


class ValidationError(OlmcatError):
    """A catalog breaks a rule of the FBC or legacy format."""


class EncodingError(OlmcatError):
    """A value cannot be written in the requested format the way opm would write it (for example
    a character that yaml.v2 cannot emit)."""


class UsageError(OlmcatError):
    """The call itself is wrong (an option a chosen opm release does not have, ...): the CLI
    reports it as a usage error (exit 2)."""
