// Outgoing connections to addresses users choose (webhooks): the address guard and the pinned dialer.
export { classifyAddress, isPublicAddress, type AddressClass } from "./address.ts";
export { checkDestination, checkUrlShape, type GuardResult, type GuardOptions, type GuardRefusal } from "./guard.ts";
export { isOwnInterfaceAddress, isThisMachineAddress, isThisMachineName, reachesThisMachine } from "./this-machine.ts";
export { defaultResolve, resolverFor, systemResolve, DnsError, type Resolve } from "./resolve.ts";
export {
  postPinned,
  pinnedLookup,
  classifyNetworkError,
  closePooledConnections,
  dropPooledConnections,
  type PinnedPost,
  type PostResult,
  type PostOutcome,
} from "./dialer.ts";
