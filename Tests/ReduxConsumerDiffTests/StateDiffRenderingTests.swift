import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension StateDiffTests {
    struct Profile {
        var user: User
        var tags: [String: Int]
        var friends: [String]
        var status: Status
        var bio: String?
    }

    static let profile = Profile(
        user: User(name: "Kim", age: 3),
        tags: ["swift": 1, "redux": 2],
        friends: ["Lee", "Park"],
        status: .idle,
        bio: "Hi"
    )

    @Test
    func renderedDiffHasOneLinePerChange() {
        var new = Self.profile
        new.user.name = "Lee"
        new.tags["swift"] = nil
        new.tags["linux"] = 3
        new.friends.append("Choi")
        new.status = .loaded(count: 2)
        new.bio = nil
        let expected = """
            ~ user.name: "Kim" → "Lee"
            + tags["linux"]: 3
            - tags["swift"]: 1
            + friends[2]: "Choi"
            ~ status: .idle → .loaded(count: 2)
            - bio: "Hi"
            """
        #expect(StateDiff(from: Self.profile, to: new).rendered() == expected)
    }

    @Test
    func wholeValueReplacementRendersAtTheRoot() {
        #expect(StateDiff(from: 1, to: 2).rendered() == "~ (root): 1 → 2")
        #expect(StateDiff(from: "a", to: "b").description == #"~ (root): "a" → "b""#)
    }

    enum Layout: CustomStringConvertible {
        case flat, broken
        var description: String { self == .flat ? "flat" : "a\r\nb\u{2028}c" }
    }

    @Test
    func lineBreaksInAValueDescriptionAreEscapedToKeepOneLinePerChange() {
        let diff = StateDiff(from: Layout.flat, to: Layout.broken)
        #expect(diff.rendered() == #"~ (root): flat → a\r\nb\u{2028}c"#)
    }

    @Test
    func emptyDiffRendersAsAnEmptyString() {
        #expect(StateDiff(from: Self.profile.user, to: Self.profile.user).rendered() == "")
    }

    @Test
    func addedAndRemovedValuesRenderWholeInSwiftNotation() {
        var new = Self.profile
        new.user = User(name: "Lee", age: 4)
        let old = [Self.profile]
        let expected = """
            + [1]: Profile(user: User(name: "Lee", age: 4), tags: ["redux": 2, "swift": 1], \
            friends: ["Lee", "Park"], status: .idle, bio: "Hi")
            """
        #expect(StateDiff(from: old, to: old + [new]).rendered(DiffFormat(maxValueLength: .max)) == expected)
    }

    @Test(
        arguments: [
            (Tree.leaf(1), ".leaf(1)"),
            (Status.loaded(count: 2), ".loaded(count: 2)"),
            ((1, label: "x"), #"(1, label: "x")"#),
            (Set([3, 1, 2]), "Set([1, 2, 3])"),
            ([String: Int](), "[:]"),
            ([Int?.none, 1], "[nil, 1]"),
            ("say \"hi\"\n", #""say \"hi\"\n""#),
            (Character("c"), #""c""#),
        ] as [(any Sendable, String)])
    func addedValuesAreRenderedLikeSwiftSource(value: any Sendable, expected: String) {
        let change = StateDiff(from: [any Sendable](), to: [value]).changes.first
        #expect(change?.newValue == expected)
    }

    @Test
    func classesRenderTheirFieldsAndCyclesRenderOnce() {
        let node = Node(1, next: Node(2))
        #expect(
            StateDiff(from: nil, to: node).changes.first?.newValue == "Node(value: 1, next: Node(value: 2, next: nil))")
        node.next = node
        #expect(StateDiff(from: nil, to: node).changes.first?.newValue == "Node(value: 1, next: Node(…))")
        node.next = nil  // Breaks the cycle, which would leak.
    }

    @Test(arguments: [
        (80, #"~ name: "Kim" → "Lee""#),
        (4, #"~ name: "Ki… → "Le…"#),
        (1, "~ name: … → …"),
        (0, "~ name: … → …"),
    ])
    func longValuesAreShortenedToTheMaximumLength(maxValueLength: Int, expected: String) {
        let diff = StateDiff(from: User(name: "Kim", age: 3), to: User(name: "Lee", age: 3))
        #expect(diff.rendered(DiffFormat(maxValueLength: maxValueLength)) == expected)
    }

    @Test
    func defaultFormatShortensValuesToEightyCharacters() throws {
        let long = String(repeating: "a", count: 200)
        let rendered = StateDiff(from: "", to: long).rendered()
        let shortened = try #require(rendered.split(separator: " → ").last)
        #expect(shortened.count == 80)
        #expect(shortened == "\"" + String(repeating: "a", count: 78) + "…")
    }

    @Test
    func colorsMarkEachKindOfChange() {
        var new = Self.profile
        new.user.age = 4
        new.friends = ["Lee", "Choi"]
        new.bio = nil
        let expected = """
            \u{1B}[33m~ user.age: 3 → 4\u{1B}[0m
            \u{1B}[33m~ friends[1]: "Park" → "Choi"\u{1B}[0m
            \u{1B}[31m- bio: "Hi"\u{1B}[0m
            """
        #expect(StateDiff(from: Self.profile, to: new).rendered(DiffFormat(usesColor: true)) == expected)
        #expect(
            StateDiff(from: [1], to: [1, 2]).rendered(DiffFormat(usesColor: true)) == "\u{1B}[32m+ [1]: 2\u{1B}[0m")
    }

    @Test
    func changesEncodeAsPathKindAndValues() throws {
        let diff = StateDiff(from: ["a": 1, "b": 2], to: ["a": 5, "c": 3])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(diff), as: UTF8.self)
        let expected = #"""
            {"changes":[{"kind":"changed","new":"5","old":"1","path":"[\"a\"]"},\#
            {"kind":"removed","old":"2","path":"[\"b\"]"},\#
            {"kind":"added","new":"3","path":"[\"c\"]"}]}
            """#
        #expect(json == expected)
    }
}
