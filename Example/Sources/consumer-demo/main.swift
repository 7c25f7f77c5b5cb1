import ConsumerDemoKit

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// Output to a pipe closed early (`consumer-demo replay big.jsonl | head -1`) fails with EPIPE, which
// the demo reports, instead of ending the process at once: a recording being written is finished.
signal(SIGPIPE, SIG_IGN)
let status = runDemo(arguments: Array(CommandLine.arguments.dropFirst()), environment: .process)
exit(status.rawValue)
