public enum EssentialFeedInfraPlaceholder {}
