/// The command line of `consumer-bench`: which scenarios to run, how big, and in what format.
struct Options {
    /// Runs only scenarios whose identifier or title contains this text (case-insensitive).
    var filter: String?
    /// CI smoke run: tiny sizes, a few repetitions, done in seconds.
    var isQuick = false
    /// One JSON object per line per scenario instead of the table.
    var isJSON = false

    /// What the command line asks for.
    enum Request {
        case run(Options)
        case help
        case invalid(String)
    }

    static let usage = """
        USAGE: consumer-bench [--filter <text>] [--quick] [--json] [--help]

        Runs the ReduxConsumer benchmarks (S1–S11, L1–L3, M1–M4, R1–R2, the StateDiff family D1–D6, and the
        scaling families N1–N4 and P1–P4) and prints, for each scenario, the median and minimum time
        per operation and its ratio to the in-run baselines: "floor" (a hand-written loop, no
        library) and "naive" (whole-state comparison per consumer). A family prints one row per
        size; "growth" is a row's time over the same row with a tenth of the selectors.

        OPTIONS:
          --filter <text>  Run only scenarios whose identifier or title contains <text>.
          --quick          Tiny sizes for a CI smoke run; ratios are reported, never asserted.
          --json           One JSON object per line per scenario.
          --help           Show this help.

        The exit status is non-zero only when a correctness check fails (a lost action, a missed or
        extra callback), never because of timing.
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) -> Request {
        var options = Options()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                return .help
            case "--quick":
                options.isQuick = true
            case "--json":
                options.isJSON = true
            case "--filter":
                guard let text = remaining.popFirst(), !text.hasPrefix("--") else {
                    return .invalid("--filter needs a value, e.g. --filter S3")
                }
                options.filter = text
            default:
                if argument.hasPrefix("--filter=") {
                    options.filter = String(argument.dropFirst("--filter=".count))
                } else {
                    return .invalid("unknown argument '\(argument)'")
                }
            }
        }
        return .run(options)
    }

    /// Whether the scenario `id` titled `title` passes the filter.
    func includes(_ id: String, title: String) -> Bool {
        guard let filter = filter?.lowercased(), !filter.isEmpty else { return true }
        return id.lowercased() == filter || title.lowercased().contains(filter)
    }
}
