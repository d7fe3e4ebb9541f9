/**
 * Who kube's controllers write as: the service account `system:serviceaccount:kube-system:<name>`
 * of each controller, and the field manager `kube-controller-manager` of their writes.
 *
 * @module
 */
import type { UserInfo } from "../../shared/api/authentication/v1/user_info.ts";

/** The field manager of the controllers' writes (kube-controller-manager's user agent). */
export const CONTROLLER_MANAGER = "kube-controller-manager";

/** The identity of a kube controller: `system:serviceaccount:kube-system:<name>`. */
export function controllerUser(name: string): UserInfo {
  return {
    username: `system:serviceaccount:kube-system:${name}`,
    groups: [
      "system:serviceaccounts",
      "system:serviceaccounts:kube-system",
      "system:authenticated",
    ],
  };
}
