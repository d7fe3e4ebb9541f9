/** ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1): webhooks that may reject objects. */
import type { KindDef } from "../../generic/kind.ts";
import { webhookConfigurationKind } from "../webhooks.ts";

/** The ValidatingWebhookConfiguration kind. */
export const validatingWebhookConfigurationKind: KindDef = webhookConfigurationKind(false);
