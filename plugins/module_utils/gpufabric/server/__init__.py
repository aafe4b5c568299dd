"""GPU server stand-up logic (pure Python, stdlib only): firmware baseline, BIOS diff, ConnectX-7 tool output,
RoCE sysfs settings, rail NIC networking and the NCCL environment. Modules and filters are thin wrappers."""
