import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

@Suite
struct StateDiffTests {
    struct User: Equatable {
        var name: String
        var age: Int
    }

    struct Auth: Equatable {
        var user: User
        var token: String?
    }

    struct Work: Equatable {
        var title: String
    }

    enum Status: Equatable {
        case idle
        case loaded(count: Int)
        case failed(String)
    }

    struct AppState: Equatable {
        var auth = Auth(user: User(name: "Kim", age: 3), token: nil)
        var works = [Work(title: "A"), Work(title: "B"), Work(title: "C")]
        var status = Status.idle
    }

    /// Not `Equatable`, so the differ has to walk it.
    struct Note {
        var text: String
        var pinned = false
    }

    indirect enum Tree: Equatable, Sendable {
        case leaf(Int)
        case node(Tree, Tree)
    }

    /// Not `Equatable`, so a long chain is walked level by level.
    indirect enum Chain: Sendable {
        case end(Int)
        case link(Chain)
    }

    final class Node {
        var value: Int
        var next: Node?

        init(_ value: Int, next: Node? = nil) {
            self.value = value
            self.next = next
        }
    }

    /// The changes between two values, one rendered line each.
    func lines<Value>(_ old: Value, _ new: Value) -> [String] {
        StateDiff(from: old, to: new).changes.map(\.description)
    }

    @Test(
        arguments: [
            1, "text", User(name: "Kim", age: 3), Note(text: "n"), [1, 2, 3], ["a": 1, "b": 2], Set(["x", "y"]),
            Status.loaded(count: 2), Int?.none, Tree.node(.leaf(1), .leaf(2)), (1, "a"),
        ] as [any Sendable])
    func equalValuesGiveAnEmptyDiff(value: any Sendable) {
        let diff = StateDiff(from: value, to: value)
        #expect(diff.isEmpty)
        #expect(diff.changes.isEmpty)
    }

    @Test
    func changedStructFieldIsReportedAtItsPath() throws {
        let diff = StateDiff(from: User(name: "Kim", age: 3), to: User(name: "Lee", age: 3))
        let change = try #require(diff.changes.first)
        #expect(diff.changes.count == 1)
        #expect(change.path == StateDiff.Path([.field("name")]))
        #expect(change.kind == .changed)
        #expect(change.oldValue == #""Kim""#)
        #expect(change.newValue == #""Lee""#)
    }

    @Test
    func nestedStructChangesHaveDottedPathsInDeclarationOrder() {
        var new = AppState()
        new.auth.user.age = 4
        new.auth.user.name = "Lee"
        new.works[2].title = "Z"
        #expect(
            lines(AppState(), new) == [
                #"~ auth.user.name: "Kim" → "Lee""#,
                "~ auth.user.age: 3 → 4",
                #"~ works[2].title: "C" → "Z""#,
            ]
        )
    }

    @Test
    func enumCaseChangeIsOneChangeAtTheEnumPath() {
        #expect(lines(Status.idle, .loaded(count: 3)) == ["~ (root): .idle → .loaded(count: 3)"])
        #expect(lines(Status.loaded(count: 3), .failed("x")) == [#"~ (root): .loaded(count: 3) → .failed("x")"#])
    }

    @Test(arguments: [
        (Status.loaded(count: 2), Status.loaded(count: 3), "~ status.loaded.count: 2 → 3"),
        (Status.failed("a"), Status.failed("b"), #"~ status.failed: "a" → "b""#),
    ])
    func enumPayloadChangeIsReportedInsideTheCase(old: Status, new: Status, expected: String) {
        var oldState = AppState()
        oldState.status = old
        var newState = AppState()
        newState.status = new
        #expect(lines(oldState, newState) == [expected])
    }

    @Test(
        arguments: [
            (nil, "K", #"+ token: "K""#),
            ("K", nil, #"- token: "K""#),
            ("K", "L", #"~ token: "K" → "L""#),
        ] as [(String?, String?, String)])
    func optionalsAreAddedRemovedOrChangedWithoutSomeInThePath(old: String?, new: String?, expected: String) {
        let user = User(name: "Kim", age: 3)
        #expect(lines(Auth(user: user, token: old), Auth(user: user, token: new)) == [expected])
    }

    @Test
    func nestedOptionalsUnwrapToTheInnerValue() {
        #expect(lines(Int??.some(nil), .some(.some(1))) == ["+ (root): 1"])
        #expect(lines(Int??.some(.some(1)), .none) == ["- (root): 1"])
    }

    @Test
    func recursiveEnumChangesHaveCaseAndElementPaths() {
        let old = Tree.node(.leaf(1), .node(.leaf(2), .leaf(3)))
        let new = Tree.node(.leaf(1), .node(.leaf(2), .node(.leaf(3), .leaf(4))))
        #expect(
            lines(old, new) == ["~ node.1.node.1: .leaf(3) → .node(.leaf(3), .leaf(4))"]
        )
        #expect(lines(old, Tree.node(.leaf(9), .node(.leaf(2), .leaf(3)))) == ["~ node.0.leaf: 1 → 9"])
    }

    @Test
    func deeplyNestedRecursiveEnumIsWalkedWithoutOverflow() throws {
        let depth = 10_000
        var old = Chain.end(1)
        var new = Chain.end(2)
        for _ in 0..<depth {
            old = .link(old)
            new = .link(new)
        }
        let diff = StateDiff(from: old, to: new)
        let change = try #require(diff.changes.first)
        #expect(diff.changes.count == 1)
        #expect(change.path.components.count == depth + 1)
        #expect(change.path.components.last == .case("end"))
        #expect(change.oldValue == "1")
        #expect(change.newValue == "2")
    }

    @Test
    func sameClassInstanceIsUnchanged() {
        let node = Node(1)
        let old = [node]
        node.value = 2
        #expect(StateDiff(from: old, to: [node]).isEmpty)
    }

    @Test
    func differentClassInstancesAreComparedByField() {
        #expect(lines(Node(1, next: Node(2)), Node(1, next: Node(3))) == ["~ next.value: 2 → 3"])
        #expect(lines(Node(1), Node(1, next: Node(5))) == ["+ next: Node(value: 5, next: nil)"])
    }

    @Test
    func referenceCyclesAreFollowedOnce() {
        let old = Node(1)
        old.next = old
        let new = Node(2)
        new.next = new
        #expect(lines(old, new) == ["~ value: 1 → 2"])
        // Breaks the cycles, which would leak.
        old.next = nil
        new.next = nil
    }

    @Test
    func tuplesAreComparedByElement() {
        #expect(lines((1, "a"), (2, "a")) == ["~ 0: 1 → 2"])
        #expect(lines((x: 1, y: 2), (x: 1, y: 3)) == ["~ y: 2 → 3"])
    }

    @Test
    func differentScalarsAreOneChangeAtTheRoot() {
        #expect(lines(1, 2) == ["~ (root): 1 → 2"])
        #expect(lines(true, false) == ["~ (root): true → false"])
    }

    @Test
    func valuesOfDifferentDynamicTypesAreOneChange() {
        #expect(lines(1 as Any, "1" as Any) == [#"~ (root): 1 → "1""#])
        #expect(lines([1, "a"] as [Any], [1, 2] as [Any]) == [#"~ [1]: "a" → 2"#])
    }

    @Test
    func nonEquatableValuesAreWalked() {
        #expect(lines(Note(text: "a"), Note(text: "a", pinned: true)) == ["~ pinned: false → true"])
    }
}
