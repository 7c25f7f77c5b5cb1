import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// The rules of `DrainStateMachine` as `Drain` runs them on real threads: where each kind of job
/// runs, hand-over, parking, and the removal protocol (marks, and the one wait a removal makes).
struct DrainTests {
    @Test func aJobForAnIdleDrainRunsAtOnceOnTheCallingThread() {
        let drain = Drain()
        let ranOn = Lock<ObjectIdentifier?>(nil)
        drain.submit(.dispatch, generation: 0) {
            ranOn.withLock { $0 = ObjectIdentifier(ThreadContext.current) }
            #expect(drain.isAccessibleFromCurrentThread)
        }
        #expect(ranOn.withLock { $0 } == ObjectIdentifier(ThreadContext.current))
        #expect(!drain.isAccessibleFromCurrentThread)
        #expect(drain.snapshot.owner == nil)
    }

    @Test func reentrantJobsRunByTheirKind() {
        let drain = Drain()
        let log = Recorder<String>()
        drain.submit(.dispatch, generation: 0) {
            log.append("job starts")
            drain.submit(.dispatch, generation: 1) {
                log.append("dispatch")
                drain.submit(.dispatch, generation: 2) { log.append("dispatch from dispatch") }
            }
            drain.submit(.control, generation: 0) { log.append("control") }
            drain.remove(tag: 1, .registration) { log.append("removal") }
            log.append("job ends")
        }
        #expect(log.values == ["job starts", "control", "removal", "job ends", "dispatch", "dispatch from dispatch"])
        #expect(drain.snapshot.removalMarks.isEmpty)
    }

    @Test func aRemovalFromAnIdleDrainRunsAtOnce() {
        let drain = Drain()
        let log = Recorder<String>()
        drain.remove(tag: 1, .member(2)) { log.append("removal") }
        #expect(log.values == ["removal"])
        #expect(drain.snapshot.owner == nil && drain.snapshot.removalMarks.isEmpty)
    }

    @Test func contendingThreadsRunOneJobAtATimeEachInItsOwnOrder() {
        let drain = Drain()
        let threads = 4
        let jobsPerThread = scaled(5_000, sanitized: 1_000)
        let counter = DrainCounter()
        let order = Lock([[Int]](repeating: [], count: threads))
        let finished = finishesWithoutDeadlock(within: 60) {
            let workers = (0..<threads).map { thread in
                spawn {
                    for job in 0..<jobsPerThread {
                        drain.submit(.dispatch, generation: 0) {
                            counter.enter()
                            order.withLock { $0[thread].append(job) }
                            counter.leave()
                        }
                    }
                }
            }
            for worker in workers { worker.wait() }
        }
        guard finished else { return }
        #expect(counter.total == threads * jobsPerThread)
        #expect(counter.maximumInside == 1)
        #expect(order.withLock { $0 } == Array(repeating: Array(0..<jobsPerThread), count: threads))
        #expect(drain.snapshot.owner == nil && drain.snapshot.isQueueEmpty)
        #expect(drain.snapshot.waitingThreads == 0)
    }

    @Test func aWaitingThreadIsHandedTheDrainAndRunsItsJobItself() {
        let drain = Drain()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let waiter = Lock<(thread: ObjectIdentifier?, ranOn: ObjectIdentifier?)>((nil, nil))
        let finished = finishesWithoutDeadlock {
            let owner = spawn {
                drain.submit(.dispatch, generation: 0) {
                    entered.signal()
                    proceed.wait()
                }
            }
            entered.wait()
            let submitter = spawn {
                waiter.withLock { $0.thread = ObjectIdentifier(ThreadContext.current) }
                drain.submit(.control, generation: 0) {
                    waiter.withLock { $0.ranOn = ObjectIdentifier(ThreadContext.current) }
                }
            }
            spin { drain.snapshot.waitingThreads == 1 }
            #expect(drain.snapshot.queuedCount == 1)
            proceed.signal()
            owner.wait()
            submitter.wait()
        }
        guard finished else { return }
        let (thread, ranOn) = waiter.withLock { $0 }
        #expect(thread != nil && ranOn == thread)
        #expect(drain.snapshot.owner == nil && drain.snapshot.waitingThreads == 0)
    }

    @Test func aThreadInsideAnotherDrainQueuesItsJobInsteadOfWaiting() {
        let busy = Drain()
        let other = Drain()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let log = Recorder<String>()
        let finished = finishesWithoutDeadlock {
            let owner = spawn {
                busy.submit(.dispatch, generation: 0) {
                    entered.signal()
                    proceed.wait()
                    log.append("owner's job ends")
                }
            }
            entered.wait()
            other.submit(.dispatch, generation: 0) {
                busy.submit(.dispatch, generation: 1) { log.append("queued job") }
                busy.submit(.control, generation: 1) { log.append("queued control") }
                log.append("submitter goes on")
            }
            #expect(busy.snapshot.queuedCount == 2 && busy.snapshot.waitingThreads == 0)
            proceed.signal()
            owner.wait()
        }
        guard finished else { return }
        #expect(log.values == ["submitter goes on", "owner's job ends", "queued job", "queued control"])
    }

    @Test func workSubmittedInsideAReducerWaitsUntilItReturnedButRemovalsDoNot() {
        let drain = Drain()
        let other = Drain()
        let log = Recorder<String>()
        drain.submit(.dispatch, generation: 0) {
            let context = ThreadContext.current
            drain.reducing(context: context) {
                #expect(drain.isReducingOnCurrentThread)
                other.submit(.dispatch, generation: 1) { log.append("dispatch to another drain") }
                drain.submit(.control, generation: 0) { log.append("control") }
                other.remove(tag: 1, .member(1)) { log.append("removal") }
                log.append("reducer returns")
            }
            #expect(!drain.isReducingOnCurrentThread)
            log.append("before the deferred work")
            drain.runDeferred()
            log.append("after the deferred work")
        }
        #expect(
            log.values == [
                "removal", "reducer returns", "before the deferred work", "dispatch to another drain", "control",
                "after the deferred work",
            ])
    }

    @Test func anOwnerWaitingForAnotherThreadIsParked() {
        let drain = Drain()
        let seen = Lock<[Bool]>([])
        ThreadContext.current.parked { seen.withLock { $0.append(drain.snapshot.isOwnerParked) } }
        drain.submit(.dispatch, generation: 0) {
            seen.withLock { $0.append(drain.snapshot.isOwnerParked) }
            ThreadContext.current.parked { seen.withLock { $0.append(drain.snapshot.isOwnerParked) } }
            seen.withLock { $0.append(drain.snapshot.isOwnerParked) }
        }
        #expect(seen.withLock { $0 } == [false, false, true, false])
    }

    // MARK: Removals while the drain runs on another thread

    @Test func aRemovalWhileTheDrainRunsElsewhereIsMarkedAndItsMemberSkipped() {
        let drain = Drain()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let log = Recorder<String>()
        let finished = finishesWithoutDeadlock {
            let owner = spawn {
                drain.submit(.dispatch, generation: 0) {
                    #expect(drain.willCall(tag: 7, member: 1))
                    entered.signal()
                    proceed.wait()
                    drain.didCall()
                    for member in [1, 2, 3] as [UInt64] where drain.willCall(tag: 7, member: member) {
                        log.append("calls \(member)")
                        drain.didCall()
                    }
                }
            }
            entered.wait()
            // Member 2 is not being called: the removal returns at once, its job queued.
            drain.remove(tag: 7, .member(2)) { log.append("removal job") }
            #expect(drain.snapshot.isMarked(tag: 7, member: 2))
            #expect(drain.markedRemovals(of: 7) == [.member(2)])
            #expect(drain.markedRemovals(of: 8).isEmpty)
            #expect(log.values.isEmpty)
            proceed.signal()
            owner.wait()
        }
        guard finished else { return }
        #expect(log.values == ["calls 1", "calls 3", "removal job"])
        #expect(drain.snapshot.removalMarks.isEmpty)
    }

    @Test func aRemovalWaitsForTheCallItRemovesToReturn() {
        let drain = Drain()
        let entered = DispatchSemaphore(value: 0)
        let log = Recorder<String>()
        let finished = finishesWithoutDeadlock {
            let owner = spawn {
                drain.submit(.dispatch, generation: 0) {
                    #expect(drain.willCall(tag: 7, member: 1))
                    entered.signal()
                    // The remover has marked the member: it now waits for this call.
                    spin { !drain.snapshot.removalMarks.isEmpty }
                    log.append("call returns")
                    drain.didCall()
                    #expect(!drain.willCall(tag: 7, member: 1))
                }
            }
            entered.wait()
            drain.remove(tag: 7, .member(1)) { log.append("removal job") }
            log.append("removal returns")
            owner.wait()
        }
        guard finished else { return }
        // The removal job may run before or after the remover logs its return; never before the call.
        #expect(log.values.first == "call returns")
        #expect(Set(log.values) == ["call returns", "removal returns", "removal job"])
    }

    /// A thread waits inside the library only for one that runs the library's work (a drain's
    /// job here): a removal made from such work does not wait for a call whose thread waits for
    /// the remover, or the two would wait for each other.
    @Test func aRemovalDoesNotWaitForACallWhoseThreadWaitsForTheRemover() {
        let drain = Drain()
        let removersDrain = Drain()
        let entered = DispatchSemaphore(value: 0)
        let removed = DispatchSemaphore(value: 0)
        let log = Recorder<String>()
        let finished = finishesWithoutDeadlock {
            let owner = spawn {
                drain.submit(.dispatch, generation: 0) {
                    #expect(drain.willCall(tag: 7, member: 1))
                    entered.signal()
                    // Waits for the remover, parked, as every wait inside the library is.
                    ThreadContext.current.parked { removed.wait() }
                    log.append("call returns")
                    drain.didCall()
                    #expect(!drain.willCall(tag: 7, member: 1))
                }
            }
            entered.wait()
            removersDrain.submit(.dispatch, generation: 0) {
                drain.remove(tag: 7, .member(1)) { log.append("removal job") }
                log.append("removal returns")
            }
            removed.signal()
            owner.wait()
        }
        guard finished else { return }
        #expect(log.values == ["removal returns", "call returns", "removal job"])
        #expect(drain.snapshot.removalMarks.isEmpty)
    }
}

/// Counts jobs, and how many ran at once; the count itself is deliberately unsynchronized.
private final class DrainCounter: @unchecked Sendable {
    // @unchecked: `count` is only touched inside one drain's jobs, which must never overlap
    // (ThreadSanitizer reports it if they do); `inside` has its own lock to measure that.
    private var count = 0
    private let inside = Lock((now: 0, maximum: 0))

    func enter() {
        inside.withLock {
            $0.now += 1
            $0.maximum = max($0.maximum, $0.now)
        }
        count += 1
    }

    func leave() {
        inside.withLock { $0.now -= 1 }
    }

    var total: Int {
        count
    }

    var maximumInside: Int {
        inside.withLock { $0.maximum }
    }

    /// Calls nested deeper than the drain publishes are named in the owner thread's spare words,
    /// never in the drain's; a remover counts such a call as calling everything and waits for the
    /// calls to unwind to a published depth.
    @Test func callsNestedBeyondThePublishedLevelsAreWaitedFor() {
        let drain = Drain()
        let entered = DispatchSemaphore(value: 0)
        let log = Recorder<String>()
        let finished = finishesWithoutDeadlock {
            let owner = spawn {
                drain.submit(.dispatch, generation: 0) {
                    var levels: [Drain.CallLevel] = []
                    for depth in 0...Drain.maxPublishedCalls {
                        let level = drain.beginCalls()
                        let published = drain.callSlots + (Drain.firstCallSlot + 2 * depth)
                        #expect((level.tagSlot == published) == (depth < Drain.maxPublishedCalls))
                        #expect(drain.willCallNext(tag: UInt(100 + depth), at: level, barrierIsCompilerOnly: false))
                        levels.append(level)
                    }
                    entered.signal()
                    // The remover of a tag named at no published level must still wait.
                    spin { !drain.snapshot.removalMarks.isEmpty }
                    log.append("deep calls return")
                    for level in levels.reversed() { drain.endCalls(level) }
                }
            }
            entered.wait()
            drain.remove(tag: 999, .registration) { log.append("removal job") }
            log.append("removal returns")
            owner.wait()
        }
        guard finished else { return }
        #expect(log.values.first == "deep calls return")
        #expect(Set(log.values) == ["deep calls return", "removal returns", "removal job"])
    }
}
