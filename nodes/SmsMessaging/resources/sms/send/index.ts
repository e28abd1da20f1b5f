// SMS → Send: its parameters and its run.

export { smsSendDescription } from './description';
export { send } from './execute';
