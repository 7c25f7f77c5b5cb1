/// A command line the demo cannot run: an unknown option or command, a missing or bad value.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String

    var description: String { message }
}
