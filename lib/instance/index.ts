export { INSTANCE_PERMISSIONS, authorizeInstance, type InstanceActor, type InstancePermission } from "./access.ts";
export { instanceAdminContacts, isInstanceAdmin, listInstanceAdmins, setInstanceAdmin, type InstanceAdminState } from "./admins.ts";
export {
  CLOSED_MESSAGE,
  INVITE_ONLY_MESSAGE,
  SIGNUP_MODES,
  SignUpRefused,
  assertSignUpAllowed,
  setSignupMode,
  signupSetting,
  type SignupMode,
  type SignupSetting,
} from "./signup.ts";
export {
  ADMIN_EXISTS_MESSAGE,
  SETUP_LINK_MINUTES,
  SETUP_PATH,
  createSetupLink,
  redeemSetupLink,
  setupLinkAtStart,
  type SetupLink,
} from "./setup-link.ts";
