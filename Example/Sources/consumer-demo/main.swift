import ConsumerDemoKit

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

let status = runDemo(arguments: Array(CommandLine.arguments.dropFirst()), environment: .process)
exit(status.rawValue)
