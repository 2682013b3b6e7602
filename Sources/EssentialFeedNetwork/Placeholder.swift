public enum EssentialFeedNetworkPlaceholder {}
