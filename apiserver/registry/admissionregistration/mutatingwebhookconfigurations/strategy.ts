/** MutatingWebhookConfiguration (admissionregistration.k8s.io/v1): webhooks that may change objects. */
import type { KindDef } from "../../generic/kind.ts";
import { webhookConfigurationKind } from "../webhooks.ts";

/** The MutatingWebhookConfiguration kind. */
export const mutatingWebhookConfigurationKind: KindDef = webhookConfigurationKind(true);
