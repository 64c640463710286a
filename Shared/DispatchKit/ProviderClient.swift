import HeraldModel

/// A provider adapter for one app: builds the provider's requests from deliveries and reads
/// its answers. It takes a batch of deliveries (all of its app) and returns one result per
/// delivery, in order, so a provider that sends many tokens in one request (Push Kit
/// multicast) and one that sends a request per token fit the same dispatcher.
public protocol ProviderClient: Sendable {
    func send(_ batch: [DispatchRequest]) async -> [SendResult]
}

/// A provider that takes one delivery per request (FCM, webhooks): a batch is sent
/// concurrently, a request per delivery.
public protocol UnicastProviderClient: ProviderClient {
    func send(_ request: DispatchRequest) async -> SendResult
}

extension UnicastProviderClient {
    public func send(_ batch: [DispatchRequest]) async -> [SendResult] {
        await BatchParts.send(batch, in: batch.indices.map { [$0] }) { part in [await self.send(part[0])] }
    }
}
