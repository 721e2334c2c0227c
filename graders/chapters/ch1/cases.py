"""The examples chapter 1 draws for ``model_memory.py`` and ``launch.py``, and their one-line
reproductions (the first DDP script's are in :mod:`graders.chapters.ch1.first_ddp.cases`)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st
from torch import nn

from graders.training.gpt import build_gpt

PRECISIONS = ("fp32", "mixed", "bf16")
OPTIMIZERS = ("adam", "sgd", "sgd_momentum")
RECOMPUTE = ("none", "selective", "full")
DTYPES = ("float32", "bfloat16", "float64")

# -- model_memory.py ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GPTCase:
    """A configuration of the kit's GPT (``GPTConfig``'s fields, the dtype by name) and, for the
    ledger and the activations, what is asked of it."""

    vocab_size: int
    max_seq_len: int
    hidden: int
    heads: int
    layers: int
    ffn_hidden: int | None = None
    tied: bool = True
    dropout: float = 0.0
    dtype: str = "float32"
    precision: str = "mixed"
    optimizer: str = "adam"
    micro_batch: int = 1
    seq_len: int = 1
    recompute: str = "none"
    world_size: int = 1

    @property
    def config(self) -> dict:
        """``GPTConfig``'s keyword arguments (the dtype as a name)."""
        names = ("vocab_size", "max_seq_len", "hidden", "heads", "layers", "ffn_hidden", "tied", "dropout")
        return {name: getattr(self, name) for name in names} | {"dtype": self.dtype}

    def gpt(self) -> nn.Module:
        """The kit's GPT of this config (float32, weights drawn from a fixed seed)."""
        return build_gpt(
            self.vocab_size,
            self.max_seq_len,
            self.hidden,
            self.heads,
            self.layers,
            self.ffn_hidden,
            tied=self.tied,
        )

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v}" for k, v in self.config.items() if k != "dtype")
        return f"GPTConfig({fields}, dtype=torch.{self.dtype})"


def _config(draw) -> dict:
    heads = draw(st.sampled_from((1, 2, 4)))
    hidden = heads * draw(st.integers(1, 4))
    return {
        "vocab_size": draw(st.integers(2, 64)),
        "max_seq_len": draw(st.integers(1, 16)),
        "hidden": hidden,
        "heads": heads,
        "layers": draw(st.integers(1, 3)),
        "ffn_hidden": draw(st.one_of(st.none(), st.integers(1, 24))),
        "tied": draw(st.booleans()),
    }


@st.composite
def count_cases(draw):
    return GPTCase(**_config(draw))


COUNT_EDGES = [
    GPTCase(2, 1, 1, 1, 1, tied=True),
    GPTCase(10, 4, 4, 2, 2, tied=False),
    GPTCase(50, 8, 8, 4, 1, ffn_hidden=5, tied=True),
]


@dataclass(frozen=True)
class LedgerCase(GPTCase):
    def __repr__(self) -> str:
        return f"{super().__repr__()}, precision={self.precision!r}, optimizer={self.optimizer!r}"


@st.composite
def ledger_cases(draw, *, mixed_adam: bool = False):
    """Every precision and optimizer but mixed-precision Adam, or (``mixed_adam``) only it."""
    if mixed_adam:
        precision, optimizer = "mixed", "adam"
    else:
        pairs = [(p, o) for p in PRECISIONS for o in OPTIMIZERS if (p, o) != ("mixed", "adam")]
        precision, optimizer = draw(st.sampled_from(pairs))
    return LedgerCase(**_config(draw), precision=precision, optimizer=optimizer)


LEDGER_EDGES = [
    LedgerCase(2, 1, 1, 1, 1, precision="fp32", optimizer="sgd"),
    LedgerCase(10, 4, 4, 2, 1, precision="bf16", optimizer="adam"),
    LedgerCase(16, 4, 4, 2, 2, tied=False, precision="mixed", optimizer="sgd_momentum"),
]
PAPER_EDGES = [
    LedgerCase(2, 1, 1, 1, 1),
    LedgerCase(32, 8, 8, 2, 2, tied=False),
]


@dataclass(frozen=True)
class ActivationCase(GPTCase):
    def __repr__(self) -> str:
        return (
            f"{GPTCase.__repr__(self)}, micro_batch={self.micro_batch}, seq_len={self.seq_len}, "
            f"recompute={self.recompute!r}"
        )


@st.composite
def activation_cases(draw, recompute: str):
    config = _config(draw)
    return ActivationCase(
        **config,
        dropout=draw(st.sampled_from((0.0, 0.0, 0.1))),
        dtype=draw(st.sampled_from(DTYPES)),
        micro_batch=draw(st.integers(1, 4)),
        seq_len=draw(st.integers(1, config["max_seq_len"])),
        recompute=recompute,
    )


def activation_edges(recompute: str) -> list[ActivationCase]:
    return [
        ActivationCase(2, 1, 1, 1, 1, seq_len=1, micro_batch=1, recompute=recompute),
        ActivationCase(8, 5, 4, 2, 1, dropout=0.1, micro_batch=2, seq_len=5, recompute=recompute),
        ActivationCase(
            8, 6, 8, 4, 2, ffn_hidden=12, dtype="bfloat16", micro_batch=3, seq_len=6, recompute=recompute
        ),
    ]


# -- launch.py -----------------------------------------------------------------------------------------

VARIABLES = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@dataclass(frozen=True)
class EnvCase:
    """``read_dist_env(env)`` on ``env`` (as pairs); ``wrong`` names the variables at fault (any
    one of them may be named), empty when ``env`` is valid."""

    env: tuple[tuple[str, str], ...]
    wrong: tuple[str, ...] = ()
    world_size: int = 1

    def __repr__(self) -> str:
        return "env={" + ", ".join(f"{k!r}: {v!r}" for k, v in self.env) + "}"


@st.composite
def valid_envs(draw) -> dict[str, str]:
    nodes = draw(st.integers(1, 4))
    local_world = draw(st.integers(1, 8))
    node, local_rank = draw(st.integers(0, nodes - 1)), draw(st.integers(0, local_world - 1))
    env = {
        "RANK": str(node * local_world + local_rank),
        "LOCAL_RANK": str(local_rank),
        "WORLD_SIZE": str(nodes * local_world),
        "LOCAL_WORLD_SIZE": str(local_world),
        "MASTER_ADDR": draw(st.sampled_from(("127.0.0.1", "node-0", "10.1.2.3", "localhost"))),
        "MASTER_PORT": str(draw(st.sampled_from((29500, 1234, 65535, 1)))),
    }
    if draw(st.booleans()):  # other variables torchrun sets, and the user's own
        env |= {"TORCHELASTIC_RUN_ID": "job", "GROUP_RANK": str(node), "PATH": "/usr/bin"}
    return env


def env_case(env: dict[str, str], *wrong: str) -> EnvCase:
    return EnvCase(tuple(sorted(env.items())), tuple(wrong))


@st.composite
def env_cases(draw):
    return env_case(draw(valid_envs()))


#: one fault: (the variable, what it becomes, the variables that may be named)
def _faults(env: dict[str, str]) -> list[tuple[str, str | None, tuple[str, ...]]]:
    world, local_world = int(env["WORLD_SIZE"]), int(env["LOCAL_WORLD_SIZE"])
    faults: list[tuple[str, str | None, tuple[str, ...]]] = [(name, None, (name,)) for name in VARIABLES]
    faults += [
        (name, text, (name,)) for name in VARIABLES if name != "MASTER_ADDR" for text in ("two", "1.5", "")
    ]
    faults += [
        ("RANK", str(world), ("RANK", "WORLD_SIZE")),
        ("RANK", "-1", ("RANK",)),
        ("LOCAL_RANK", str(local_world), ("LOCAL_RANK", "LOCAL_WORLD_SIZE")),
        ("LOCAL_RANK", "-1", ("LOCAL_RANK",)),
        ("WORLD_SIZE", "0", ("WORLD_SIZE", "RANK", "LOCAL_WORLD_SIZE")),
        ("LOCAL_WORLD_SIZE", "0", ("LOCAL_WORLD_SIZE", "LOCAL_RANK")),
        ("LOCAL_WORLD_SIZE", str(world + 1), ("LOCAL_WORLD_SIZE", "WORLD_SIZE")),
        ("MASTER_ADDR", "", ("MASTER_ADDR",)),
        ("MASTER_PORT", "0", ("MASTER_PORT",)),
        ("MASTER_PORT", "70000", ("MASTER_PORT",)),
    ]
    return faults


def _with_fault(env: dict[str, str], fault) -> EnvCase:
    name, text, named = fault
    broken = dict(env)
    if text is None:
        del broken[name]
    else:
        broken[name] = text
    if name == "LOCAL_WORLD_SIZE" and text == str(int(env["WORLD_SIZE"]) + 1):
        broken["LOCAL_RANK"] = "0"  # only the sizes disagree
    return env_case(broken, *named)


@st.composite
def bad_env_cases(draw):
    """One fault, its kind drawn first (missing, not an integer, out of range), then the variable."""
    env = draw(valid_envs())
    faults = _faults(env)
    kind = draw(st.sampled_from(("missing", "text", "range")))
    chosen = [f for f in faults if (f[1] is None) == (kind == "missing")]
    if kind != "missing":
        chosen = [f for f in chosen if (f[1] in ("two", "1.5", "")) == (kind == "text")]
    return _with_fault(env, draw(st.sampled_from(chosen)))


_BASE = {
    "RANK": "3",
    "LOCAL_RANK": "1",
    "WORLD_SIZE": "4",
    "LOCAL_WORLD_SIZE": "2",
    "MASTER_ADDR": "127.0.0.1",
    "MASTER_PORT": "29500",
}
ENV_EDGES = [
    env_case(_BASE),
    env_case(_BASE | {"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "LOCAL_WORLD_SIZE": "1"}),
]
BAD_ENV_EDGES = [
    _with_fault(_BASE, ("MASTER_PORT", None, ("MASTER_PORT",))),
    _with_fault(_BASE, ("WORLD_SIZE", "four", ("WORLD_SIZE",))),
    _with_fault(_BASE, ("RANK", "4", ("RANK", "WORLD_SIZE"))),
    _with_fault(_BASE, ("LOCAL_RANK", "2", ("LOCAL_RANK", "LOCAL_WORLD_SIZE"))),
    _with_fault(_BASE, ("MASTER_PORT", "70000", ("MASTER_PORT",))),
    _with_fault(_BASE, ("LOCAL_WORLD_SIZE", "5", ("LOCAL_WORLD_SIZE", "WORLD_SIZE"))),
]


@dataclass(frozen=True)
class BackendCase:
    """``pick_backend(device)``, the device given as a string or as a ``torch.device``."""

    device: str
    as_object: bool = False
    world_size: int = 1

    @property
    def expected(self) -> str:
        return "nccl" if self.device.split(":")[0] == "cuda" else "gloo"

    def __repr__(self) -> str:
        return f"device=torch.device({self.device!r})" if self.as_object else f"device={self.device!r}"


DEVICES = ("cpu", "cuda", "cuda:0", "cuda:1", "cuda:7", "meta", "mps")


def backend_cases():
    return st.builds(BackendCase, st.sampled_from(DEVICES), st.booleans())


BACKEND_EDGES = [BackendCase("cpu"), BackendCase("cuda:1", True), BackendCase("cuda")]


@dataclass(frozen=True)
class DeviceCase:
    """``device_for(local_rank)`` on a machine with ``gpus`` CUDA devices (0: CPU only)."""

    local_rank: int
    gpus: int
    world_size: int = 1

    @property
    def expected(self) -> str:
        return f"cuda:{self.local_rank}" if self.gpus else "cpu"

    def __repr__(self) -> str:
        return f"local_rank={self.local_rank}, on a machine with {self.gpus} GPU(s)"


@st.composite
def device_cases(draw):
    gpus = draw(st.sampled_from((0, 0, 1, 2, 4, 8)))
    return DeviceCase(draw(st.integers(0, max(gpus, 4) - 1)), gpus)


DEVICE_EDGES = [DeviceCase(0, 0), DeviceCase(1, 2), DeviceCase(3, 0)]
