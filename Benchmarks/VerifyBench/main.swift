print("attestd-verify-bench: not built yet")
