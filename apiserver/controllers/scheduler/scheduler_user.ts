/**
 * The identity the scheduler acts as (kube-scheduler's user).
 *
 * @module
 */
import type { UserInfo } from "../../../shared/api/authentication/v1/user_info.ts";

/** The user the scheduler acts as. */
export const SCHEDULER_USER: UserInfo = {
  username: "system:kube-scheduler",
  groups: ["system:authenticated"],
};
