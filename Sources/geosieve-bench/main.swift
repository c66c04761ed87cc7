// Replaced by the benchmark command.
