// A change-tracking agent as its plugin receives it: settings parsed by the type's own schemas.
import type {
  ChangeTrackingConfiguration,
  ChangeTrackingHostCredentials,
} from '../../../shared/agents/changeTracking';
import type { ResolvedAgent } from '../spi';

export type ChangeTrackingAgent = ResolvedAgent<ChangeTrackingHostCredentials, ChangeTrackingConfiguration>;
