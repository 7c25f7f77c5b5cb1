/// The text of `consumer-demo --help` and of `help` at the prompt.
enum HelpText {
    static let scriptCommands = [
        "Script commands, one per line:",
        "  increment, decrement        counter + 1, counter - 1",
        "  set N                       counter = N",
        "  rename NAME | rename nil    name = NAME, or nil",
        "  add-work TEXT               append TEXT to works",
        "  remove-work INDEX           remove works[INDEX]",
        "  login USER | logout         auth.user = USER, or nil",
        "  foreground on|off           foreground = true or false",
        "  # comment                   ignored, as are blank lines",
        "  NAME, TEXT and USER are a bare word (Kim) or a quoted string (\"Kim Lee\", with \\\" and \\\\).",
        "At the prompt also: help, state (print the state), quit.",
    ]

    static let usage = """
        Usage:
          consumer-demo [tour]        run the built-in tour
          consumer-demo run FILE      replay a script; FILE - reads standard input
          consumer-demo run           replay standard input, or open a prompt on a terminal
          consumer-demo repl          type script commands at a prompt
          consumer-demo service       serve simulated requests concurrently (service --help)
          consumer-demo record FILE   record the tour (or --script SCRIPT) to FILE, one JSON line
                                      per action with state hashes
          consumer-demo replay FILE   replay a recording, printing each diff; FILE - reads
                                      standard input; --step moves through a file with next,
                                      back, jump N, state, quit
        """

    static var full: String {
        """
        consumer-demo \(demoVersion): learn ReduxConsumer by watching state change.

        \(usage)

        Options:
          --json                      one JSON object per action (run, repl, replay)
          --keep-going                run the lines after a bad one (run, record --script)
          --color, --no-color         force colors on or off; by default colors are on when
                                      standard output is a terminal and NO_COLOR is not set
          --max-value-length N        cut longer values with … (default 80)
          --script SCRIPT             record this script instead of the tour; - reads
                                      standard input (record)
          --snapshot-interval N       record the whole state every N actions (record; default 10)
          --until N                   stop after action N (replay)
          --step                      step through the recording with commands read from
                                      standard input (replay)
          -h, --help                  show this help
          --version                   show the version
          --                          end of options; what follows is a file name

        \(scriptCommands.joined(separator: "\n"))

        Exit status:
          0  success
          1  errors in the script, or bad --step commands
          2  usage error
          3  a script or recording cannot be read, or a recording cannot be written
          4  bad recording: not JSON, unknown action type, another kind of file, newer format,
             corrupted or truncated (nothing after the bad line is replayed)
          5  the replay diverged: a state hash differs from the recorded one
          6  service lost work: a request, action, backend call or audit entry unaccounted for

        Examples:
          consumer-demo
          consumer-demo run Example/scripts/tour.txt
          consumer-demo run Example/scripts/errors.txt --keep-going
          printf 'increment\\nrename "Kim"\\n' | consumer-demo run - --json
          consumer-demo record tour.jsonl --script Example/scripts/tour.txt
          consumer-demo replay tour.jsonl --until 5
          printf 'next\\njump 10\\nback\\n' | consumer-demo replay tour.jsonl --step
        """
    }
}
