/// The command line of `consumer-demo service`: its own options, after the command.
struct ServiceOptions: Equatable {
    var load = ServiceLoad()
    var isJSON = false
    var wantsHelp = false

    static let help = """
        Usage: consumer-demo service [options]

        Serves simulated requests with an actor-based service: a global store, a page store and a
        backend call (an effect) per request, a reporter task reading store.changes(of:), and a
        graceful shutdown. Prints throughput and operator metrics, and checks that nothing was lost.

        Options:
          --requests N        requests in all (default 10000)
          --concurrency N     clients sending at once (default 64)
          --latency-us N      backend and audit-log latency in microseconds (default 100; 0 yields)
          --drop-every N      every Nth client hangs up while its backend call is slow, which
                              cancels the call (default 10; 0 for none)
          --timeout-s N       seconds a request waits for its answer before it is dropped
                              (default 30)
          --json              print one JSON object instead of text
          -h, --help          show this help

        Exit status: 0 nothing lost, 2 usage error, 6 something was lost
        """

    private static let numbers:
        [(name: String, minimum: Int, field: any WritableKeyPath<ServiceLoad, Int> & Sendable)] = [
            ("--requests", 0, \.requests),
            ("--concurrency", 1, \.concurrency),
            ("--latency-us", 0, \.latencyMicroseconds),
            ("--drop-every", 0, \.dropEvery),
            ("--timeout-s", 1, \.timeoutSeconds),
        ]

    /// Parses the arguments after `service`: `--name N` or `--name=N`, `--json`, `--help`.
    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> ServiceOptions {
        var options = ServiceOptions()
        var arguments = arguments.makeIterator()
        while let argument = arguments.next() {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts.first ?? argument
            switch name {
            case "--json": options.isJSON = true
            case "--help", "-h": options.wantsHelp = true
            default:
                guard let number = numbers.first(where: { $0.name == name }) else {
                    var message = "unknown option \(quoted(argument, limit: 40)) for 'service'"
                    if let suggestion = closestMatch(to: name, in: numbers.map(\.name) + ["--json", "--help"]) {
                        message += "; did you mean '\(suggestion)'?"
                    }
                    throw UsageError(message: message)
                }
                guard let text = parts.count == 2 ? parts[1] : arguments.next() else {
                    throw UsageError(message: "option '\(name)' needs a value: \(name) N")
                }
                guard let value = Int(text), value >= number.minimum else {
                    throw UsageError(
                        message: "option '\(name)' expects a whole number of at least \(number.minimum), "
                            + "found \(quoted(text, limit: 40))"
                    )
                }
                options.load[keyPath: number.field] = value
            }
        }
        return options
    }
}
