"""Recording and analysing torch.distributed traffic."""
