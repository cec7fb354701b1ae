"""Which output of a notebook carries Blockscope's files (about 1 MB for the runtime), so that each is inlined once.

In an IPython kernel, the first output that needs a group of files (the runtime; a model; the corpus) carries it, and
the page shares it with every later output (loader.js). The output stays the carrier until its cell runs again
(the output is being replaced: the next output that needs the group carries it, whichever cell it is in) or
``reset()``. Cells are told apart by the id JupyterLab and Notebook 7 send, else by their source. Outside IPython,
and with ``configure(assets="every")``, every output carries all it needs (each then works on its own: nothing is
shared).
"""

_MODES = ("once", "every")


def _ipython():
    try:
        from IPython import get_ipython  # noqa: PLC0415 (optional: only inside IPython)
    except ImportError:
        return None
    ip = get_ipython()
    # A kernel (ZMQ shell) or a terminal IPython; tests and scripts that import IPython without a shell get None.
    return ip


def _cell_key_now(ip):
    """The running cell: its id (from the request's metadata) or its source."""
    parent = None
    kernel = getattr(ip, "kernel", None)
    for get in (getattr(kernel, "get_parent", None), lambda: getattr(ip, "parent_header", None)):
        if not callable(get):
            continue
        try:
            parent = get()
        except Exception:  # noqa: BLE001 (any kernel without it)
            parent = None
        if parent:
            break
    cell_id = ((parent or {}).get("metadata") or {}).get("cellId")
    if cell_id:
        return "id:" + str(cell_id)
    try:
        return "source:" + ip.history_manager.input_hist_raw[-1]
    except Exception:  # noqa: BLE001
        return None


class Session:
    def __init__(self):
        self.mode = "once"
        self.carriers = {}  # group -> key of the cell whose output carries it
        self.current = None  # key of the running cell (pre_run_cell)
        self._hooked = None

    def configure(self, assets):
        if assets not in _MODES:
            raise ValueError(f"assets must be 'once' (the first output carries the files) or 'every'; got {assets!r}")
        self.mode = assets

    def reset(self):
        self.carriers.clear()

    def _pre_run_cell(self, info=None):
        key = None
        if info is not None:
            cell_id = getattr(info, "cell_id", None)
            key = ("id:" + str(cell_id)) if cell_id else ("source:" + str(getattr(info, "raw_cell", "")))
        self.current = key
        if key is not None:
            for group in [g for g, k in self.carriers.items() if k == key]:
                del self.carriers[group]  # that cell's outputs are being replaced

    def _hook(self, ip):
        if self._hooked is ip:
            return
        try:
            ip.events.register("pre_run_cell", self._pre_run_cell)
        except Exception:  # noqa: BLE001 (a shell without events: every output then carries its files)
            self._hooked = None
            return
        self._hooked = ip
        self.current = _cell_key_now(ip)

    def groups_to_carry(self, needed):
        """Of the groups ``needed`` by an output about to be rendered, those it must carry."""
        ip = _ipython()
        if self.mode == "every" or ip is None:
            return list(needed)
        self._hook(ip)
        if self._hooked is None:
            return list(needed)
        carry = [g for g in needed if g not in self.carriers]
        for group in carry:
            self.carriers[group] = self.current
        return carry


SESSION = Session()
