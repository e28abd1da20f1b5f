export { smsSendDescription } from './description';
export { send } from './execute';
