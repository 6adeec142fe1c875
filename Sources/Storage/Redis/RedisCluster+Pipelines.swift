extension RedisCluster {
    /// The calls of one batch that go to one server, as one pipeline.
    struct Pipeline {
        let target: Target
        let calls: [RedisCall]
    }

    typealias Sent = (replies: [RedisReply], acknowledged: Int64?)

    /// Sends each pipeline to its server and answers their replies (and WAIT's count), in order. Every pipeline is
    /// written before any reply is read, so the round trips to several primaries, and the replicas' acknowledgements
    /// they wait for, overlap instead of adding up. A pipeline whose server already has one in flight (a primary
    /// that is also the target of an ASK) waits for its turn, and one whose idle connection turns out closed (the
    /// server restarted) is sent again on a new connection, as `RedisConnectionPool.withConnection` does.
    func send(_ pipelines: [Pipeline]) -> [Result<Sent, StoreError>] {
        guard pipelines.count > 1 else { return pipelines.map(sendAlone) }
        var started: [Started] = []
        started.reserveCapacity(pipelines.count)
        var busy: Set<Endpoint> = []
        for pipeline in pipelines {
            guard busy.insert(pipeline.target.endpoint).inserted else {
                started.append(.later)
                continue
            }
            let pool = pool(pipeline.target.endpoint)
            let lease: RedisConnectionPool.Lease
            do throws(StoreError) {
                lease = try pool.lease()
            } catch {
                started.append(.failed(error))
                continue
            }
            do throws(RedisFailure) {
                let inFlight = try RedisPipeline.start(pipeline.calls, on: lease.connection, hashes: hashes,
                                                      asking: pipeline.target.asking, wait: wait)
                started.append(.inFlight(pool, lease, inFlight))
            } catch {
                pool.release(lease, after: error)
                started.append(lease.reused && error.isClosed ? .later : .failed(error.storeError))
            }
        }
        return zip(pipelines, started).map { pipeline, started in
            switch started {
            case .later:
                return sendAlone(pipeline)
            case .failed(let error):
                return .failure(error)
            case .inFlight(let pool, let lease, let inFlight):
                do throws(RedisFailure) {
                    let sent = try inFlight.finish(on: lease.connection, hashes: hashes)
                    pool.release(lease)
                    return .success(sent)
                } catch {
                    pool.release(lease, after: error)
                    return lease.reused && error.isClosed ? sendAlone(pipeline) : .failure(error.storeError)
                }
            }
        }
    }

    /// What became of a pipeline after the writing round.
    private enum Started {
        case inFlight(RedisConnectionPool, RedisConnectionPool.Lease, RedisPipeline.InFlight)
        case failed(StoreError)
        /// Sent on its own after the others: its server was busy with another, or its connection was found closed.
        case later
    }

    /// One pipeline, written and read on a connection of its own.
    private func sendAlone(_ pipeline: Pipeline) -> Result<Sent, StoreError> {
        Result { () throws(StoreError) in
            try pool(pipeline.target.endpoint).withConnection { connection throws(RedisFailure) in
                try RedisPipeline.send(pipeline.calls, on: connection, hashes: hashes, asking: pipeline.target.asking, wait: wait)
            }
        }
    }
}

extension RedisFailure {
    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }
}
