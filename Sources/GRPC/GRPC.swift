/// Namespace of the GRPC module; see ../../README.md for its place in attestd.
public enum GRPCModule {}
