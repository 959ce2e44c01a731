"""The object store: every object, one resourceVersion counter, watch history.

This plays the part of etcd plus the apiserver's watch cache.  Invariants:

- Every write (create, update, delete) bumps the one global counter by one
  and appends exactly one Event to the history, so the event for
  resourceVersion R sits at index R - history[0].rv.  Finding "the events
  after R" is therefore O(1) plus the size of the answer.
- Stored objects are never mutated after put(): writers build a new dict.
  Readers may take a reference under the lock and serialise it outside.
- All methods marked "lock held" must be called inside `with store.lock:`.
  The lock is a Condition, so watchers sleep on it and every write wakes
  them.

The watch window is the last `history` events.  A watch may resume from any
RV at or after `oldest_rv()`; older RVs are Expired (410).  expire_all()
moves that horizon to "now" and bumps an epoch that open watches compare
against, which ends them with an ERROR event.
"""

import threading
import time


class TooOld(Exception):
    """The resourceVersion is older than the watch window."""

    def __init__(self, rv, oldest):
        super().__init__(rv, oldest)
        self.rv = rv
        self.oldest = oldest


class TooLarge(Exception):
    """The resourceVersion is newer than anything the store has seen."""

    def __init__(self, rv, current):
        super().__init__(rv, current)
        self.rv = rv
        self.current = current


class Event:
    """One write: type ADDED/MODIFIED/DELETED, the object after it and the
    object before it (None for ADDED), which selector-filtered watches need
    to turn a change of labels or node into ADDED/DELETED."""

    __slots__ = ("rv", "type", "kind", "obj", "prev", "encoded")

    def __init__(self, rv, etype, kind, obj, prev):
        self.rv = rv
        self.type = etype
        self.kind = kind
        self.obj = obj
        self.prev = prev
        self.encoded = None     # obj as JSON bytes, cached by the first watch


class Watch:
    """A cursor into the history for one kind; see Store.open_watch."""

    def __init__(self, kind, pos, epoch, initial, after=0):
        self.kind = kind
        self.pos = pos          # last RV this watch has seen
        self.after = after      # send only events newer than this RV
        self.epoch = epoch      # store epoch at open; a change means expired
        self.initial = initial  # events to send before waiting
        self.closed = False


class Store:
    def __init__(self, history=1000):
        self.lock = threading.Condition(threading.Lock())
        self._window = max(1, history)
        self._rv = 0
        self._objs = {}          # kind -> {(namespace, name): obj}
        self._hist = []          # Events with consecutive rvs
        self._horizon = 0        # RVs below this are Expired
        self._epoch = 0
        self._listeners = []
        self.open_watches = 0

    # -- reads (lock held) ------------------------------------------------

    @property
    def rv(self):
        return self._rv

    def get(self, kind, ns, name):
        return self._objs.get(kind, {}).get((ns, name))

    def list(self, kind, ns=None):
        objs = self._objs.get(kind, {}).values()
        if ns is None:
            return list(objs)
        return [o for o in objs if o["metadata"].get("namespace") == ns]

    def count(self, kind):
        return len(self._objs.get(kind, {}))

    # -- writes (lock held) -----------------------------------------------

    def put(self, kind, obj, etype):
        """Store obj (ADDED or MODIFIED) under a new resourceVersion.

        obj becomes the store's: the caller must not change it afterwards."""
        self._rv += 1
        obj["metadata"]["resourceVersion"] = str(self._rv)
        meta = obj["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        table = self._objs.setdefault(kind, {})
        prev = table.get(key)
        table[key] = obj
        self._record(Event(self._rv, etype, kind, obj, prev))
        return obj

    def remove(self, kind, obj):
        """Delete obj.  Like etcd, the DELETED event carries the RV of the
        deletion, so the returned copy has a new metadata.resourceVersion."""
        meta = obj["metadata"]
        key = (meta.get("namespace", ""), meta["name"])
        prev = self._objs[kind].pop(key)
        self._rv += 1
        gone = dict(prev)
        gone["metadata"] = dict(prev["metadata"], resourceVersion=str(self._rv))
        self._record(Event(self._rv, "DELETED", kind, gone, prev))
        return gone

    def _record(self, ev):
        self._hist.append(ev)
        # Trim in batches so the cost per write stays O(1) amortised.
        if len(self._hist) > 2 * self._window:
            del self._hist[: len(self._hist) - self._window]
        for fn in self._listeners:
            fn(ev)
        self.lock.notify_all()

    # -- history ------------------------------------------------------------

    def oldest_rv(self):
        """The oldest RV a watch may start from (lock held)."""
        return max(self._horizon, self._rv - self._window)

    def _events_after(self, rv):
        """The events after rv, or None if some have left the window."""
        if rv >= self._rv:
            return []
        if rv < self.oldest_rv() or not self._hist:
            return None
        start = rv + 1 - self._hist[0].rv
        if start < 0:
            return None
        return self._hist[start:]

    def list_at(self, kind, rv):
        """The objects of kind as they were at rv (lock held): the current
        set with the later history undone.  Raises TooOld/TooLarge."""
        if rv > self._rv:
            raise TooLarge(rv, self._rv)
        later = self._events_after(rv)
        if later is None:
            raise TooOld(rv, self.oldest_rv())
        objs = dict(self._objs.get(kind, {}))
        for ev in reversed(later):
            if ev.kind != kind:
                continue
            meta = ev.obj["metadata"]
            key = (meta.get("namespace", ""), meta["name"])
            if ev.prev is None:
                objs.pop(key, None)
            else:
                objs[key] = ev.prev
        return list(objs.values())

    def expire_all(self):
        """Drop the whole window and end every open watch with 410."""
        with self.lock:
            self._hist = []
            self._horizon = self._rv
            self._epoch += 1
            self.lock.notify_all()

    # -- watches -------------------------------------------------------------

    def open_watch(self, kind, rv):
        """Start a watch on kind from rv (None or 0: current state first, as
        synthetic ADDED events).  Raises TooOld for an RV that has left the
        window.  An RV newer than the store's is no error (as in the 1.20
        watch cache): the watch waits, silent, until writes pass it."""
        with self.lock:
            if rv and rv > self._rv:
                self.open_watches += 1
                return Watch(kind, self._rv, self._epoch, [], after=rv)
            if not rv:
                initial = [Event(self._rv, "ADDED", kind, o, None)
                           for o in self._objs.get(kind, {}).values()]
            else:
                later = self._events_after(rv)
                if later is None:
                    raise TooOld(rv, self.oldest_rv())
                initial = [e for e in later if e.kind == kind]
            self.open_watches += 1
            return Watch(kind, self._rv, self._epoch, initial)

    def next_events(self, watch, deadline):
        """Block until watch has new events or deadline (time.monotonic()).

        Returns a list (empty on timeout), or None when the watch expired:
        expire_all() ran, or it fell so far behind that its next events
        left the window."""
        with self.lock:
            while True:
                if watch.epoch != self._epoch:
                    return None
                if self._rv > watch.pos:
                    later = self._events_after(watch.pos)
                    if later is None:
                        return None
                    watch.pos = self._rv
                    return [e for e in later if e.kind == watch.kind
                            and e.rv > watch.after]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                self.lock.wait(remaining)

    def close_watch(self, watch):
        with self.lock:
            if not watch.closed:
                watch.closed = True
                self.open_watches -= 1

    # -- listeners ------------------------------------------------------------

    def subscribe(self, fn, kinds):
        """Call fn(event) for every later write, under the lock, so fn must
        be quick (e.g. put the event on a queue).  Returns the current
        objects of kinds as synthetic ADDED events, taken atomically with
        the subscription so that no write falls in between."""
        with self.lock:
            self._listeners.append(fn)
            return [Event(self._rv, "ADDED", k, o, None)
                    for k in kinds for o in self._objs.get(k, {}).values()]
