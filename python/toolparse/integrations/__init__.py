"""Drop-in parsers for inference servers: vllm.py and sglang.py."""
