/// The schedule of the background receipt refresher, shared by every node: which active keys' receipts are due
/// for Apple's risk-metric endpoint, and a lease so that two nodes never post the same receipt at the same moment.
///
/// A claim moves the key's next refresh time to the lease's end and names its owner, in one atomic step; the
/// owner's completion stores the outcome only while it still holds the lease. A node that dies mid-refresh leaves
/// the key due again when the lease ends. Keys enter the schedule when they are registered with a receipt, due at
/// once; revoked keys and keys without a receipt are never claimed.
public protocol ReceiptRefreshStore: Sendable {
    /// Claims up to `limit` keys due at `now` (oldest due first) until `leaseUntil`, for `owner` (a token unique to
    /// this claim round). Keys claimed by another owner whose lease has not ended are not due.
    func claimReceiptRefreshes(now: Int64, limit: Int, leaseUntil: Int64, owner: String) throws(StoreError) -> [ReceiptRefreshClaim]

    /// Records a refresh's outcome and releases the lease. Returns false, writing nothing, when `owner` no longer
    /// holds the key's lease (it ended and another claim took the key).
    func completeReceiptRefresh(_ completion: ReceiptRefreshCompletion) throws(StoreError) -> Bool

    /// Adds the keys registered before the store kept a schedule (by an older attestd), due at once; keys already
    /// scheduled keep their time. Idempotent; the refresher calls it once as it starts. Returns how many were added.
    func scheduleUnscheduledKeys() throws(StoreError) -> Int
}

extension ReceiptRefreshStore {
    /// Stores whose schedule is derived from the keys themselves, or filled when they open, have nothing to add.
    public func scheduleUnscheduledKeys() throws(StoreError) -> Int { 0 }
}

/// A key whose receipt is to be posted to Apple now.
public struct ReceiptRefreshClaim: Sendable, Equatable {
    public var keyID: [UInt8]
    public var appID: String
    public var environment: String
    /// The 65-byte uncompressed P-256 point: a new receipt must be for this key.
    public var publicKey: [UInt8]
    /// The latest receipt stored for the key: the one to post.
    public var receipt: [UInt8]

    public init(keyID: [UInt8], appID: String, environment: String, publicKey: [UInt8], receipt: [UInt8]) {
        self.keyID = keyID
        self.appID = appID
        self.environment = environment
        self.publicKey = publicKey
        self.receipt = receipt
    }
}

/// What came of one claimed refresh.
public struct ReceiptRefreshCompletion: Sendable, Equatable {
    public var keyID: [UInt8]
    /// The claim's owner token.
    public var owner: String
    /// When Apple was asked (unix seconds).
    public var checkedAt: Int64
    /// Apple's HTTP status (200, 304, 404, 429…), or 0 when there was no usable answer.
    public var status: Int
    /// A verified new receipt to store in place of the old one; nil keeps the old one.
    public var newReceipt: [UInt8]?
    /// The new receipt's risk metric.
    public var riskMetric: Int?
    /// When the key is due again (unix seconds).
    public var nextRefreshAt: Int64

    public init(keyID: [UInt8], owner: String, checkedAt: Int64, status: Int, newReceipt: [UInt8]? = nil,
                riskMetric: Int? = nil, nextRefreshAt: Int64) {
        self.keyID = keyID
        self.owner = owner
        self.checkedAt = checkedAt
        self.status = status
        self.newReceipt = newReceipt
        self.riskMetric = riskMetric
        self.nextRefreshAt = nextRefreshAt
    }
}
