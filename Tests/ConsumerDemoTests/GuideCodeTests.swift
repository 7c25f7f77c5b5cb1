import Foundation
import Testing

/// Every Swift block of the README's "Using it in a service" and "Using it in an app" sections, and
/// of the DocC articles made from them, is code that compiles and runs: each of its lines, in
/// order, is a line of the example's service or of the guides' tests (which may have more lines:
/// doc comments, lines the guide leaves out).
struct GuideCodeTests {
    static let guides: [(file: String, section: String?)] = [
        ("README.md", "## Using it in a service"),
        ("README.md", "## Using it in an app"),
        ("Sources/ReduxConsumer/ReduxConsumer.docc/UsingItInAService.md", nil),
        ("Sources/ReduxConsumer/ReduxConsumer.docc/UsingItInAnApp.md", nil),
    ]

    static let sources = [
        "Example/Sources/ConsumerDemoKit/Service/RequestService.swift",
        "Example/Sources/ConsumerDemoKit/Service/RequestState.swift",
        "Example/Sources/ConsumerDemoKit/Service/ServiceLoad.swift",
        "Tests/ConsumerDemoTests/UsingItInAServiceTests.swift",
        "Tests/ConsumerDemoTests/UsingItInAnAppTests.swift",
    ]

    @Test(arguments: guides.indices)
    func everySwiftBlockIsCompiledCode(guide: Int) throws {
        let (file, section) = Self.guides[guide]
        let blocks = swiftBlocks(in: try text(of: file, section: section))
        #expect(blocks.count >= 3, "\(file) \(section ?? ""): no code blocks found")
        let sources = try Self.sources.map { try lines(of: text(of: $0)) }
        for block in blocks {
            let found = sources.contains { appearsInOrder(block, in: $0) }
            #expect(found, "\(file): this block is not compiled code:\n\(block.joined(separator: "\n"))")
        }
    }

    @Test func theServiceCoreIsUnderFortyLines() throws {
        let section = try text(of: "README.md", section: "## Using it in a service")
        let core = try #require(swiftBlocks(in: section).first)
        #expect(core.first == "actor RequestService {")
        #expect(core.count < 40)
    }
}

/// The text of `file` (from the repository root), or of its `section`: from that heading to the
/// next heading of the same level.
private func text(of file: String, section: String? = nil) throws -> String {
    let text = try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8)
    guard let section else { return text }
    let start = try #require(text.range(of: "\n" + section + "\n"), "\(file) has no section \(section)")
    let rest = text[start.upperBound...]
    let end = rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex
    return String(rest[..<end])
}

/// The non-blank lines of each ```swift block, trimmed.
private func swiftBlocks(in text: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if current == nil, trimmed == "```swift" {
            current = []
        } else if let block = current, trimmed == "```" {
            blocks.append(block)
            current = nil
        } else if !trimmed.isEmpty {
            current?.append(trimmed)
        }
    }
    return blocks
}

/// The non-blank lines of `text`, trimmed.
private func lines(of text: String) -> [String] {
    text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

/// Whether every line of `block` is a line of `source`, in the same order.
private func appearsInOrder(_ block: [String], in source: [String]) -> Bool {
    var position = source.startIndex
    for line in block {
        guard let found = source[position...].firstIndex(of: line) else { return false }
        position = found + 1
    }
    return true
}
