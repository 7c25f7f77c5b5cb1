import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// `StateConsumer.count` leaves out the members whose owner is gone. It tallies members per
/// owner (one look per owner, not one per member); what it returns is unchanged: the members
/// added and not removed, less those of gone owners, whichever order owners go and members are
/// removed in, and an owner's identity taken by a new object once it is gone.
@Suite struct OwnerCountTests {
    private final class Owner: Sendable {}

    @Test func membersOfOneOwnerAreCountedUntilItGoes() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        var owner: Owner? = Owner()
        var tokens: [ConsumerToken] = []
        for index in 0..<20 {
            tokens.append(consumer.add({ $0.counter &+ index }, owner: owner!) { _, _, _ in })
            #expect(consumer.count == index + 1)
        }
        let plain = consumer.add(\.name) { _, _ in }
        #expect(consumer.count == 21)
        tokens[3].cancel()
        tokens[7].cancel()
        #expect(consumer.count == 19)
        owner = nil
        #expect(consumer.count == 1, "only the member without an owner")
        tokens[0].cancel()
        #expect(consumer.count == 1)
        store.dispatch(CounterAction.increment)  // the inert members remove themselves
        #expect(consumer.count == 1)
        for token in tokens { token.cancel() }
        #expect(consumer.count == 1)
        plain.cancel()
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    @Test func ownersGoIndependently() {
        let consumer = StateConsumer<AppState>()
        var first: Owner? = Owner()
        var second: Owner? = Owner()
        var third: Owner? = Owner()
        var tokens: [ConsumerToken] = []
        for index in 0..<9 {
            let owner = [first!, second!, third!][index % 3]
            tokens.append(consumer.add({ $0.counter &+ index }, owner: owner) { _, _, _ in })
        }
        #expect(consumer.count == 9)
        second = nil
        #expect(consumer.count == 6)
        tokens[0].cancel()  // the first owner's
        tokens[1].cancel()  // the second's, gone already
        #expect(consumer.count == 5)
        first = nil
        #expect(consumer.count == 3)
        consumer.removeAll()
        #expect(consumer.count == 0)
        consumer.add(\.counter, owner: third!) { _, _, _ in }
        #expect(consumer.count == 1, "counted afresh after removeAll")
        third = nil
        #expect(consumer.count == 0)
    }

    @Test func anIdentityTakenByANewOwnerCountsOnlyTheNewOwnersMembers() {
        let consumer = StateConsumer<AppState>()
        var gone: Owner? = Owner()
        let identity = ObjectIdentifier(gone!)
        for index in 0..<5 {
            consumer.add({ $0.counter &+ index }, owner: gone!) { _, _, _ in }
        }
        gone = nil
        #expect(consumer.count == 0)
        // A new owner, at the gone one's address when the allocator gives it back (it usually
        // does at once); the count is the same either way.
        var newOwner: Owner? = Self.owner(preferably: identity)
        let tokens = (0..<3).map { index in
            consumer.add({ $0.counter &+ index }, owner: newOwner!) { _, _, _ in }
        }
        #expect(consumer.count == 3)
        tokens[0].cancel()
        #expect(consumer.count == 2)
        newOwner = nil
        #expect(consumer.count == 0)
        consumer.removeAll()
        #expect(consumer.count == 0)
    }

    /// A new owner, with `identity` if one of the next 64 made has it; only the caller holds it.
    private static func owner(preferably identity: ObjectIdentifier) -> Owner {
        var others: [Owner] = []
        var owner = Owner()
        while ObjectIdentifier(owner) != identity, others.count < 64 {
            others.append(owner)
            owner = Owner()
        }
        return owner
    }
}
