/// Stops the program because the API was misused, with `message` on standard error in every build
/// configuration: `precondition` prints its message only in unoptimized builds, and programs ship
/// optimized.
@usableFromInline
package func stopOnMisuse(_ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line)
    -> Never
{
    fatalError(message(), file: file, line: line)
}

/// Stops the program with `message` unless `condition` holds (see
/// ``stopOnMisuse(_:file:line:)``).
@inlinable
package func requireProperUse(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { stopOnMisuse(message(), file: file, line: line) }
}
