"""MindInsight's retention limits (compat §3.6), in one place."""

# Steps kept per tag, by plugin.
MAX_STEPS = {
    "scalar": 1000,
    "image": 10,
    "histogram": 50,
    "tensor": 20,
    "loss_landscape": 500,
    "pr_curve": 100,  # MindInsight has none; TensorBoard's own default sampling for PR curves
}
DEFAULT_MAX_STEPS = 500
EVERY_STEP = 1 << 62  # a series limit no run reaches: every step kept (the public API's all_steps)

# Tags kept per job, by plugin, and over all plugins.
MAX_TAGS_PER_PLUGIN = {"tensor": 6, "graph": 10}
MAX_TAGS = 300

# Payload sizes.
MAX_HISTOGRAM_BUCKETS = 90  # a histogram with more buckets is dropped (MindInsight does too)
MAX_TENSOR_ELEMENTS = 10_000_000  # larger tensors keep their shape and type, not their data
MAX_TENSOR_RESPONSE_VALUES = 100_000  # a tensor slice may show at most this many values
MAX_HISTOGRAM_BINS = 30  # re-binned histograms

# A file whose last record is incomplete and that nobody has written to for this long was cut
# short (a crashed or killed writer), not "still being written" (MindInsight: "damaged").
TRUNCATED_AFTER_SECONDS = 600

# Directories a walk of LOGDIR enters at most (LOGDIR itself not counted), locally
# (`discovery`) and in a remote listing (`remote_listing`, `ssh_listing`): a link the walk's
# rules let through cannot make it walk a whole machine. Past it, a note says jobs are missing.
MAX_DIRS_WALKED = 50_000

# Decoded tensors, images and histograms kept in memory, in bytes.
PAYLOAD_CACHE_BYTES = 64 << 20

PLUGINS = ("scalar", "histogram", "tensor", "image", "loss_landscape")


def max_steps(plugin: str) -> int:
    return MAX_STEPS.get(plugin, DEFAULT_MAX_STEPS)
