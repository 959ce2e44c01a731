"""Injected API failures, for crash and retry tests (/kubesim/fail).

    POST   /kubesim/fail?verb=create&resource=pods&code=503[&count=N]
                         [&message=TEXT]
    DELETE /kubesim/fail

Until cleared (or for the next N matching requests), every API request with
that verb (create, get, list, watch, update, patch, delete,
deletecollection) on that resource (pods, nodes, pods/binding, which may
also be named "bindings", pods/status, ...) is answered with a Status of
that code instead of being served, with TEXT as the Status message if
given (an admission plugin's words, e.g. 'violates PodSecurity ...').  verb
or resource may be "*" or left out to match any.
"""

import threading

from .objects import ApiError, bad_request

_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden",
            404: "NotFound", 409: "Conflict", 410: "Expired",
            413: "RequestEntityTooLarge",
            422: "Invalid", 429: "TooManyRequests", 500: "InternalError",
            503: "ServiceUnavailable", 504: "Timeout"}
_ALIASES = {"bindings": "pods/binding"}


class Faults:
    def __init__(self):
        self._lock = threading.Lock()
        self._rules = []    # [verb, resource, code, remaining|None, message]
        self.injected = 0

    def add(self, query):
        verb = query.get("verb") or "*"
        resource = query.get("resource") or "*"
        code, count = query.get("code", ""), query.get("count")
        message = query.get("message")
        if not code.isdigit() or not 400 <= int(code) <= 599:
            raise bad_request("fail: code must be an HTTP error code")
        if count is not None and not count.isdigit():
            raise bad_request("fail: count must be a number")
        with self._lock:
            self._rules.append([verb, _ALIASES.get(resource, resource),
                                int(code), int(count) if count else None,
                                message])

    def clear(self):
        with self._lock:
            self._rules = []

    def check(self, verb, resource):
        """Raise the injected error if a rule matches this request."""
        if not self._rules:         # the common case, without the lock
            return
        with self._lock:
            for rule in self._rules:
                if rule[0] in ("*", verb) and rule[1] in ("*", resource):
                    if rule[3] is not None:
                        rule[3] -= 1
                        if rule[3] == 0:
                            self._rules.remove(rule)
                    self.injected += 1
                    raise ApiError(rule[2], _REASONS.get(rule[2]),
                                   rule[4] or
                                   "kubesim: injected failure for %s %s"
                                   % (verb, resource))
