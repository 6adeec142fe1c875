/// attestd entry point.
print("attestd")
